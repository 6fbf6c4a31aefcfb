from __future__ import annotations

import uuid
from datetime import datetime
from typing import Self

from pydantic import Field, model_validator
from pydantic.json_schema import JsonDict

from unionflow.core.regles import ABSENT, DONNE, Si, UnSeul
from unionflow.core.schemas import InputModel, OutputModel, UpdateModel
from unionflow.core.texte import trimmed_pattern
from unionflow.models.notification import Canal, StatutNotification, TypeNotification
from unionflow.notifications.rendu import SYSTEME
from unionflow.preferences.schemas import CanauxDistincts

CODE_PATTERN = r"^[A-Z][A-Z0-9_]{1,49}$"
VARIABLE_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,39}$"
# The names of a message's own variables notifications.rendu.check_variables accepts (once trimmed, as every key
# is): stated for clients; the check and its French message (400 `regle-metier`) stay the service's.
NOMS_VARIABLES: JsonDict = {"pattern": trimmed_pattern(VARIABLE_PATTERN[1:-1]),
                  "not": {"pattern": trimmed_pattern("|".join(sorted(SYSTEME)))}}


class NotificationEnvoi(InputModel):
    regles = (UnSeul(("membre_ids", "tous_membres_actifs"), "donner soit membreIds, soit tousMembresActifs=true"),
              Si("code_modele", ABSENT, "sans codeModele, sujet et corps sont requis", requis=("sujet", "corps")),
              Si("code_modele", DONNE, "codeModele exclut sujet et corps", exclus=("sujet", "corps")))

    organisation_id: uuid.UUID = Field(description="Organisation au nom de laquelle on écrit")
    membre_ids: list[uuid.UUID] | None = Field(default=None, min_length=1, max_length=1000)
    tous_membres_actifs: bool = Field(default=False, description="Tous les membres actifs de l'organisation")
    type_notification: TypeNotification = TypeNotification.INFORMATION
    canaux: CanauxDistincts | None = Field(default=None, min_length=1, max_length=3,
                                       description="Par défaut: préférences du membre, sinon EMAIL > SMS > IN_APP")
    code_modele: str | None = Field(default=None, pattern=CODE_PATTERN)
    sujet: str | None = Field(default=None, min_length=1, max_length=200)
    corps: str | None = Field(default=None, min_length=1, max_length=5000)
    variables: dict[str, str] = Field(
        default_factory=dict, max_length=30, json_schema_extra={"propertyNames": NOMS_VARIABLES},
        description="Valeurs des {variables} propres à ce message. Noms: une lettre puis lettres, chiffres ou _ "
                    f"(40 au plus), hors variables fournies par le serveur ({', '.join(sorted(SYSTEME))}); sinon 400 "
                    "`regle-metier`")

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.canaux is not None and len(set(self.canaux)) != len(self.canaux):
            raise ValueError("canal répété")
        return self


class EnvoiGroupe(InputModel):
    envois: list[NotificationEnvoi] = Field(min_length=1, max_length=50)


class EnvoiResultat(OutputModel):
    destinataires: int = Field(description="Membres visés")
    creees: int = Field(description="Notifications créées (une par membre et par canal)")
    refusees_par_preference: int = Field(description="Membres ayant refusé ce type de notification")
    sans_adresse: int = Field(description="Notifications créées ECHOUEE faute d'adresse e-mail ou de téléphone")
    par_canal: dict[str, int]


class NotificationResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID
    organisation_id: uuid.UUID | None
    type_notification: TypeNotification
    canal: Canal
    adresse: str | None
    sujet: str
    corps: str
    statut: StatutNotification
    tentatives: int
    derniere_erreur: str | None
    prochaine_tentative: datetime | None
    date_envoi: datetime | None
    date_lecture: datetime | None
    source_type: str | None
    source_id: uuid.UUID | None
    code_modele: str | None
    reference_passerelle: str | None = Field(default=None, description=(
        "Extension (SMS): identifiant du message chez la passerelle, que ses accusés de réception nomment"))
    accuse_statut: str | None = Field(default=None, description=(
        "Extension (SMS): dernier accusé de réception, tel que la passerelle le nomme (Success, Failed, "
        "DeliveredToTerminal, DeliveryImpossible…)"))
    accuse_le: datetime | None = Field(default=None, description="Extension (SMS): date du dernier accusé")
    created_at: datetime


class NonLuesResponse(OutputModel):
    non_lues: int


class MarquageResponse(OutputModel):
    marquees: int


class CreateModeleRequest(InputModel):
    code: str = Field(pattern=CODE_PATTERN)
    canal: Canal
    organisation_id: uuid.UUID | None = Field(default=None, description="Vide: modèle global (ADMIN)")
    libelle: str | None = Field(default=None, max_length=200)
    sujet: str = Field(min_length=1, max_length=200)
    corps: str = Field(min_length=1, max_length=5000)
    actif: bool = True


class UpdateModeleRequest(UpdateModel):
    nullable_fields = frozenset({"libelle"})
    libelle: str | None = Field(default=None, max_length=200)
    sujet: str | None = Field(default=None, min_length=1, max_length=200)
    corps: str | None = Field(default=None, min_length=1, max_length=5000)
    actif: bool | None = None


class ModeleResponse(OutputModel):
    id: uuid.UUID
    code: str
    canal: Canal
    organisation_id: uuid.UUID | None
    libelle: str | None
    sujet: str
    corps: str
    actif: bool
    variables: list[str] = Field(default_factory=list, description="Variables utilisées par le modèle")
    created_at: datetime
    updated_at: datetime
