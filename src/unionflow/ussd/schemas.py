from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field
from pydantic.json_schema import JsonDict

from unionflow.core.schemas import InputModel, OutputModel

PIN_PATTERN = r"^[0-9]{4,6}$"


def _trop_simples() -> list[str]:
    """The codes ``pin_service.trop_simple`` refuses (every digit the same, or a run up or down by one), listed so
    that the schema says it: 66 codes of 4 to 6 digits. The service's check and its French message stay."""
    codes: set[str] = set()
    for longueur in range(4, 7):
        codes |= {str(d) * longueur for d in range(10)}
        codes |= {"".join(str(d + i) for i in range(longueur)) for d in range(11 - longueur)}
        codes |= {"".join(str(d - i) for i in range(longueur)) for d in range(longueur - 1, 10)}
    return sorted(codes)


PIN_TROP_SIMPLES = _trop_simples()
_PIN_SCHEMA: JsonDict = {"not": {"enum": [*PIN_TROP_SIMPLES]}}
_TROP_SIMPLE = "ni tous identiques ni suite (1234, 4321), sinon 400 `regle-metier`"


class CreatePinUssdRequest(InputModel):
    pin: str = Field(pattern=PIN_PATTERN, json_schema_extra=_PIN_SCHEMA,
                     description=f"4 à 6 chiffres; {_TROP_SIMPLE}")


class CreateReinitialisationPinUssdRequest(InputModel):
    nouveau_pin: str | None = Field(default=None, pattern=PIN_PATTERN, json_schema_extra=_PIN_SCHEMA, description=(
        "Nouveau code tapé par le membre au guichet (4 à 6 chiffres; " + _TROP_SIMPLE + "); absent: le code est "
        "effacé et le membre en crée un nouveau"))


class PinUssdResponse(OutputModel):
    membre_id: uuid.UUID
    defini: bool = Field(description="Un code PIN est enregistré (jamais renvoyé; empreinte à clé hors base)")
    echecs: int = Field(description="Codes faux consécutifs (3 bloquent l'accès USSD)")
    verrouille: bool
    verrouille_le: datetime | None
