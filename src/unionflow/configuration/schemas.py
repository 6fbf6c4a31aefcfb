from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field, JsonValue

from unionflow.core.schemas import InputModel, OutputModel

CLE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$"


class TypeValeur(StrEnum):
    STRING = "STRING"
    NUMBER = "NUMBER"
    BOOLEAN = "BOOLEAN"
    JSON = "JSON"


class UpdateConfigurationRequest(InputModel):
    valeur: JsonValue = Field(description="Valeur typée: chaîne, nombre, booléen ou JSON selon le type de la clé")
    description: str | None = Field(default=None, max_length=500)
    type: TypeValeur | None = Field(
        default=None, description="Pour une nouvelle clé seulement (déduit de la valeur si absent); le type d'une "
                                  "clé existante ne change pas")


class ConfigurationResponse(OutputModel):
    cle: str
    valeur: JsonValue
    type: TypeValeur
    description: str | None
    par_defaut: bool = Field(description="true: valeur intégrée jamais modifiée")
    modifie_par: str | None = None
    date_modification: datetime | None = None
