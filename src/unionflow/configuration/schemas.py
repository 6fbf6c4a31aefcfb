from __future__ import annotations

from datetime import datetime

from pydantic import Field, JsonValue

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.configuration import TypeValeur

CLE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$"


class UpdateConfigurationRequest(InputModel):
    valeur: JsonValue = Field(description="Valeur du type de la clé (STRING ou NUMBER), dans ses bornes; nombres "
                                          "entiers pour les jours, deux décimales au plus pour les montants")
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
