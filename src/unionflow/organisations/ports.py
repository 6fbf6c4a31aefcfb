"""What the creation of an organisation asks of the areas above organisations (core/ports.py): plugged by
registres.py."""

from __future__ import annotations

import uuid
from typing import Protocol

from unionflow.core.auth import AuthContext
from unionflow.core.ports import Port


class MiseEnPlace(Protocol):
    """What a new organisation starts with in the areas above (its books' income accounts in the SYCEBNL
    numbering, comptabilite/produits/service.py); in the request that creates it, so both commit together."""

    async def organisation_creee(self, organisation_id: uuid.UUID, auth: AuthContext) -> None:
        ...


MISE_EN_PLACE: Port[MiseEnPlace] = Port("organisations.MISE_EN_PLACE")
