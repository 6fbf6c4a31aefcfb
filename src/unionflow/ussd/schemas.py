from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel

PIN_PATTERN = r"^[0-9]{4,6}$"


class CreatePinUssdRequest(InputModel):
    pin: str = Field(pattern=PIN_PATTERN, description="4 à 6 chiffres; ni tous identiques ni suite (1234, 4321)")


class CreateReinitialisationPinUssdRequest(InputModel):
    nouveau_pin: str | None = Field(default=None, pattern=PIN_PATTERN, description=(
        "Nouveau code tapé par le membre au guichet; absent: le code est effacé et le membre en crée un nouveau"))


class PinUssdResponse(OutputModel):
    membre_id: uuid.UUID
    defini: bool = Field(description="Un code PIN est enregistré (jamais renvoyé; empreinte à clé hors base)")
    echecs: int = Field(description="Codes faux consécutifs (3 bloquent l'accès USSD)")
    verrouille: bool
    verrouille_le: datetime | None
