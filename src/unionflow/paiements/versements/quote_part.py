"""The quote-part a member organisation pays its federation, once delivered (docs/federation.md).

A quote-part is a payout of object QUOTE_PART naming the receiving federation (``organisation_destinataire_id``):
created through ``POST /api/federations/quotes-parts``, confirmed by a second person (and approved above the
threshold) like every payout. When it is delivered the payer's side is booked by ``comptabiliser_versement``
(6584 / treasury); here, in the same transaction, the federation gives it a receipt number in ITS series and books
its side (treasury / 7584).

The series is the federation's own gap-free series of quote-part receipts, QPR-<code>-<year>-NNNNNN (its series
code, a counter row per organisation and year), beside its payment receipts (REC-…) and refund receipts (RMB-…):
taking numbers from REC would leave gaps in the receipts of its payments, which an auditor checks against them.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.federation import comptabiliser_quote_part_recue
from unionflow.core.auth import AuthContext
from unionflow.core.numbering import next_value
from unionflow.models import Versement
from unionflow.models.versement import ObjetVersement
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.recus.numerotation import code_serie

PREFIXE_QUOTE_PART = "QPR"


def compteur_quotes_parts(organisation_id: uuid.UUID, annee: int) -> str:
    """The counter row of the quote-part receipts an organisation gives for a year."""
    return f"{PREFIXE_QUOTE_PART}-{organisation_id}-{annee}"


def numero_quote_part(code: str, annee: int, valeur: int) -> str:
    return f"{PREFIXE_QUOTE_PART}-{code}-{annee}-{valeur:06d}"


async def comptabiliser_quote_part(session: AsyncSession, versement: Versement, auth: AuthContext | None) -> None:
    """The federation's side of a delivered quote-part: its receipt number, then its entry. Nothing for another
    payout."""
    destinataire = versement.organisation_destinataire_id
    if versement.objet_type != ObjetVersement.QUOTE_PART or destinataire is None:
        return
    if versement.numero_recu_destinataire is None:
        annee = (versement.date_execution or datetime.now(UTC)).year
        # The counter first, then the code (which the first receipt writes): paiements/encaissement's lock order.
        valeur = await next_value(session, compteur_quotes_parts(destinataire, annee))
        code = await code_serie(session, destinataire)
        versement.numero_recu_destinataire = numero_quote_part(code, annee, valeur)
        await session.flush()
    noms = await OrganisationRepository(session, None).noms({versement.organisation_id})
    await comptabiliser_quote_part_recue(session, versement, noms.get(versement.organisation_id, "?"), auth)
