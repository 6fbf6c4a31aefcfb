"""What lcbft reads of the areas above it (core/ports.py): plugged by registres.py."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Protocol

from unionflow.core.ports import Port
from unionflow.models import Paiement, Versement


class CumulsArgent(Protocol):
    """The cumulated amounts the screening compares with its threshold (lcbft/detection.py)."""

    async def sum_paiements_valides(self, paiement: Paiement, debut: datetime, fin: datetime) -> Any:
        """What the payment's member paid (VALIDE) in its organisation between ``debut`` and ``fin``, the payment
        itself excluded."""
        ...

    async def sum_versements_aide(self, versement: Versement, membre_id: uuid.UUID, debut: datetime) -> Any:
        """What the member received by delivered aid payouts of the organisation since ``debut``, the payout
        itself excluded."""
        ...


CUMULS: Port[CumulsArgent] = Port("lcbft.CUMULS")
