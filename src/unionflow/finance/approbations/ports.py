"""What finance's approvals read of the areas above them (core/ports.py): plugged by registres.py."""

from __future__ import annotations

import uuid
from typing import Protocol

from unionflow.core.ports import Port
from unionflow.models import Versement


class VersementsAApprouver(Protocol):
    """The payout an approval request is about (finance/approbations/service.py); the caller checks its
    organisation."""

    async def versement(self, versement_id: uuid.UUID) -> Versement | None:
        ...


VERSEMENTS: Port[VersementsAApprouver] = Port("finance.approbations.VERSEMENTS")
