from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, JsonValue

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.configuration import Referentiel, TypeValeur

CLE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$"


class UpdateConfigurationRequest(InputModel):
    # null is refused for every key (configuration.service.encode, 400 `regle-metier`): the schema says so.
    valeur: JsonValue = Field(json_schema_extra={"not": {"type": "null"}},
                              description="Valeur du type de la clé (STRING ou NUMBER), dans ses bornes; nombres "
                                          "entiers pour les jours, deux décimales au plus pour les montants; jamais "
                                          "null")
    description: str | None = Field(default=None, max_length=500)
    type: TypeValeur | None = Field(
        default=None, description="Facultatif; s'il est donné, il doit être le type de la clé (il ne change jamais)")


class ConfigurationResponse(OutputModel):
    cle: str
    valeur: JsonValue
    type: TypeValeur
    description: str | None
    par_defaut: bool = Field(description="true: valeur intégrée jamais modifiée")
    modifie_par: str | None = None
    date_modification: datetime | None = None


class UpdateConfigurationOrganisationRequest(InputModel):
    valeur: JsonValue = Field(description="Valeur du type de la clé (BOOLEAN: true ou false)")


class ConfigurationOrganisationResponse(OutputModel):
    cle: str
    valeur: JsonValue = Field(description="Valeur effective pour l'organisation")
    type: TypeValeur
    description: str | None
    propre: bool = Field(description="true: valeur propre à l'organisation; false: celle de l'installation")
    modifie_par: str | None = None
    date_modification: datetime | None = None


class ChoisirReferentielRequest(InputModel):
    referentiel: Referentiel
    exercice: int = Field(ge=2000, le=2100, description="Premier exercice (année) où le choix s'applique")
    motif: str = Field(min_length=3, max_length=500,
                       description="Pourquoi ce référentiel (décision du bureau, agrément, seuils...)")
    reference_agrement: str | None = Field(
        None, min_length=1, max_length=100,
        description="PCMS seulement, obligatoire: référence de l'agrément ou de l'immatriculation de la mutuelle "
                    "sociale (Règlement n° 07/2009/CM/UEMOA)")


class ChoixReferentielResponse(OutputModel):
    id: uuid.UUID
    referentiel: Referentiel
    exercice: int
    reference_agrement: str | None
    motif: str
    choisi_par: str
    date_choix: datetime


class ReferentielComptableResponse(OutputModel):
    organisation_id: uuid.UUID
    exercice: int = Field(description="L'exercice demandé")
    referentiel: Referentiel = Field(description="Référentiel en vigueur pour l'exercice")
    par_defaut: bool = Field(description="true: aucun choix enregistré n'est en vigueur pour l'exercice: "
                                         "SYCEBNL_NORMAL, y compris pour une mutuelle (une mutuelle sociale agréée "
                                         "choisit PCMS en citant son agrément)")
    choix: ChoixReferentielResponse | None = Field(description="Le choix en vigueur, s'il y en a un")
    historique: list[ChoixReferentielResponse] = Field(description="Tous les choix enregistrés, le plus récent "
                                                                   "en dernier")
