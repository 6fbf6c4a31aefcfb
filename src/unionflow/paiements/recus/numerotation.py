"""Receipt numbers: each organisation keeps its own gap-free series per year for receipts (REC-<code>-<year>-NNNNNN)
and for refund receipts (RMB-…), on counters of core/numbering.py; a declared payment has a random reference
(DEC-…) outside the series until its money is confirmed. The organisation's code is given once, at its first
receipt."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import reference
from unionflow.core.numbering import random_reference
from unionflow.organisations.repository import SerieOrganisationRepository

# Receipts: one gap-free series per organisation and year (docs/decisions.md "séries par organisation").
PREFIXE_RECU = "REC"
# A payment not yet received (declared by the member, Wave checkout open) has this reference, outside the receipt
# series: it gets its receipt number only when the money is confirmed.
PREFIXE_DECLARATION = "DEC"
# Refund receipts: their own gap-free series per organisation and year, RMB-<code>-<year>-NNNNNN.
PREFIXE_REMBOURSEMENT = "RMB"


def compteur_recus(organisation_id: uuid.UUID, annee: int) -> str:
    """The counter row of an organisation's receipts for a year: payments of different organisations never wait
    on the same row."""
    return f"{PREFIXE_RECU}-{organisation_id}-{annee}"


def numero_recu(code: str, annee: int, valeur: int) -> str:
    return f"{PREFIXE_RECU}-{code}-{annee}-{valeur:06d}"


def compteur_remboursements(organisation_id: uuid.UUID, annee: int) -> str:
    """The counter row of an organisation's refund receipts for a year (each organisation keeps its own
    gap-free series, refund receipts included)."""
    return f"{PREFIXE_REMBOURSEMENT}-{organisation_id}-{annee}"


def numero_remboursement(code: str, annee: int, valeur: int) -> str:
    return f"{PREFIXE_REMBOURSEMENT}-{code}-{annee}-{valeur:06d}"


def reference_declaration(annee: int) -> str:
    return random_reference(PREFIXE_DECLARATION, annee)


class _SansCode(Exception):
    """The organisation has no series code yet: nothing to keep in the worker's cache."""


async def code_serie(session: AsyncSession, organisation_id: uuid.UUID) -> str:
    """The organisation's code in its receipt numbers: from the worker's cache (a code never changes once
    stored), else one read; given here, once, to an organisation that has none yet (its first receipt) — and
    then not cached, since this transaction may still roll back."""
    repo = SerieOrganisationRepository(session)

    async def stocke() -> str:
        code = await repo.code_serie(organisation_id)
        if code is None:
            raise _SansCode
        return code

    try:
        return await reference.lire(session, ("code_serie", organisation_id), stocke)
    except _SansCode:
        return await repo.attribuer_code_serie(organisation_id)
