"""Ledger lines that name who paid and the receipt: "Cotisation 03/2026 — Awa Diop —
REC-DKR-2026-12 (espèces)" rather than "Reçu REC-DKR-2026-12 (ESPECES)".

Joined when a statement is read, not only written when the entry is posted: entries booked before this change
read the same way, and a member's name corrected later is the name printed. The stored labels stay what they were
(an entry is never rewritten once posted)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ports import PIECES
from unionflow.core.libelles import METHODE_EN_MOTS

_CODE = re.compile(r"\((" + "|".join(METHODE_EN_MOTS) + r")\)")
LOT_IDS = 5000
# Beyond this many dues, the periods are given as a range with their count.
MAX_PERIODES = 3


@dataclass(frozen=True)
class Piece:
    """What a payment's entry is about: its object, the member and the receipt."""

    objet: str
    membre: str
    recu: str
    methode: str


def codes_en_mots(libelle: str) -> str:
    """"Extourne: Reçu REC-1 (ESPECES)" → "Extourne: Reçu REC-1 (espèces)", for labels stored before."""
    return _CODE.sub(lambda m: f"({METHODE_EN_MOTS[m.group(1)]})", libelle)


def _periode(annee: Any, mois: Any) -> str:
    return f"{int(mois):02d}/{annee}" if mois else str(annee)


def objet(allocations: Sequence[tuple[Any, ...]]) -> str:
    """Allocation rows of ``PaiementsDesPieces.allocations``: (cotisation_id, adhesion_id, annee, mois)."""
    periodes = [_periode(a[2], a[3]) for a in allocations if a[0] is not None and a[2] is not None]
    parts = []
    if len(periodes) == 1:
        parts.append(f"Cotisation {periodes[0]}")
    elif len(periodes) > MAX_PERIODES:
        parts.append(f"Cotisations {periodes[0]} à {periodes[-1]} ({len(periodes)})")
    elif periodes:
        parts.append("Cotisations " + ", ".join(periodes))
    if any(a[1] is not None for a in allocations):
        parts.append("Droits d'adhésion")
    return " + ".join(parts) or "Avance sur cotisations"


async def pieces(session: AsyncSession, organisation_id: uuid.UUID, paiement_ids: Iterable[uuid.UUID | None]
                 ) -> dict[uuid.UUID, Piece]:
    """The payments behind an organisation's entries (whose visibility the caller checked)."""
    ids = sorted({i for i in paiement_ids if i is not None})
    if not ids:
        return {}
    # The money tables are paiements' (comptabilite/ports.py).
    repo = PIECES(session)
    payeurs: dict[uuid.UUID, tuple[str, str, str]] = {}
    allocations: dict[uuid.UUID, list[tuple[Any, ...]]] = {}
    # A year's ledger of a large mutual holds more payments than a statement may bind parameters (asyncpg: 32 767).
    for i in range(0, len(ids), LOT_IDS):
        lot = await repo.payeurs(organisation_id, ids[i:i + LOT_IDS])
        payeurs.update(lot)
        allocations.update(await repo.allocations(list(lot)))
    return {pid: Piece(objet(allocations.get(pid, [])), membre, recu, METHODE_EN_MOTS.get(methode, methode.lower()))
            for pid, (recu, methode, membre) in payeurs.items()}


def libelle_ligne(libelle: str, piece: Piece | None, classe: int) -> str:
    """The label a statement prints for one line: the payment's full description on its lines (with the means of
    payment on the treasury line, class 5), the stored label with codes in words elsewhere."""
    if piece is None:
        return codes_en_mots(libelle)
    if classe == 5:
        return f"{piece.objet} — {piece.membre} — {piece.recu} ({piece.methode})"
    return f"{codes_en_mots(libelle)} — {piece.membre} — {piece.recu}"
