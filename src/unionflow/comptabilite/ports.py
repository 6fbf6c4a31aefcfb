"""What comptabilite reads of the areas above it (core/ports.py): plugged by registres.py."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Any, Protocol

from unionflow.core.ports import Port


class PaiementsDesPieces(Protocol):
    """The payments behind an organisation's entries, for the ledger's labels (comptabilite/pieces/libelles.py).
    Every read is restricted to the organisation's payments; the caller checked that its entries are visible."""

    async def payeurs(self, organisation_id: uuid.UUID, paiement_ids: list[uuid.UUID]
                      ) -> dict[uuid.UUID, tuple[str, str, str]]:
        """Per payment: receipt number, method code, the member's full name."""
        ...

    async def allocations(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[tuple[Any, ...]]]:
        """Per payment, in allocation order: (cotisation_id, adhesion_id, annee, mois) of what it paid."""
        ...


PIECES: Port[PaiementsDesPieces] = Port("comptabilite.PIECES")


class DonsRecus(Protocol):
    """The donations an organisation received, for the SYCEBNL notes (comptabilite/sycebnl/notes.py); the caller
    checked that its entries are visible."""

    async def dons_par_methode(self, organisation_id: uuid.UUID, debut: date, fin: date) -> dict[str, Decimal]:
        """Validated payments of nature DON dated from ``debut`` to ``fin`` inclusive, summed by method."""
        ...


DONS: Port[DonsRecus] = Port("comptabilite.DONS")


class BenevolatRecu(Protocol):
    """The volunteer time an organisation recorded (dons/benevolat.py), for the SYCEBNL notes; the caller checked
    that its records are visible."""

    async def totaux(self, organisation_id: uuid.UUID, debut: date, fin: date) -> tuple[int, Decimal, Decimal]:
        """(contributions, hours, value) of the lines still recorded, dated from ``debut`` to ``fin`` inclusive."""
        ...


BENEVOLAT: Port[BenevolatRecu] = Port("comptabilite.BENEVOLAT")
