"""The federation's side of a quote-part (docs/federation.md).

A quote-part is a payout of the member organisation (``Versement`` of object QUOTE_PART): its own side is booked
by ``comptabiliser_versement`` (debit 6584, credit its treasury). The same transaction books the receiving
federation's side here: debit the federation's treasury of the same kind (bank 521 for a manual transfer, its Wave
account for a Wave payout: ``compte_de_type``), credit 7584 "Quotes-parts reçues des organisations membres".
Both entries carry the payout's number as piece reference, which is how consolidation finds the pair it
eliminates; the federation's entry also names the paying organisation in its label and the receipt number given
in the federation's series.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import (
    ZERO,
    compte_par_defaut,
    contrepasser,
    journal_par_defaut,
)
from unionflow.comptabilite.ecritures.tresorerie import TYPE_VERSEMENT, compte_de_type, journal_de_type
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.service import Ligne, poster_automatique
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState
from unionflow.models import EcritureComptable, Versement
from unionflow.models.versement import ObjetVersement, StatutVersement

CHARGE_QUOTE_PART = "6584"
PRODUIT_QUOTE_PART = "7584"


def prefixe_annulation(numero: str) -> str:
    """Piece reference of the reversal of a quote-part, on both sides (as ``extourner_versement`` names it)."""
    return f"ANN-{numero}"


async def comptabiliser_quote_part_recue(session: AsyncSession, versement: Versement, payeur: str,
                                         auth: AuthContext | None = None) -> EcritureComptable:
    """Book the quote-part at the federation that receives it: debit its treasury, credit 7584. Once: a second
    call returns the entry already booked (same piece reference in the federation's books)."""
    if versement.objet_type != ObjetVersement.QUOTE_PART or versement.organisation_destinataire_id is None:
        raise InvalidState("Ce versement n'est pas une quote-part")
    if versement.statut != StatutVersement.REUSSI:
        raise InvalidState(f"Seule une quote-part versée est comptabilisée (statut: {versement.statut})")
    org = versement.organisation_destinataire_id
    existing = await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(org, versement.numero)
    if existing is not None:
        return existing
    # Into the federation's default treasury of that kind when it declared one, else that kind's standard account.
    genre = TYPE_VERSEMENT.get(versement.mode, "BANQUE")
    numero_tresorerie, code_journal = await compte_de_type(session, org, genre), journal_de_type(genre)
    recu = versement.numero_recu_destinataire or versement.numero
    lignes = [
        Ligne(await compte_par_defaut(session, org, numero_tresorerie, auth), debit=versement.montant, credit=ZERO,
              libelle=f"Quote-part {versement.numero} reçue ({versement.mode})"),
        Ligne(await compte_par_defaut(session, org, PRODUIT_QUOTE_PART, auth), debit=ZERO, credit=versement.montant,
              libelle=f"{payeur}: reçu {recu}"[:300]),
    ]
    return await poster_automatique(
        session, auth, journal=await journal_par_defaut(session, org, code_journal),
        date_ecriture=(versement.date_execution or datetime.now(UTC)).date(),
        libelle=f"Quote-part de {payeur} ({versement.numero}, reçu {recu})", lignes=lignes,
        piece_reference=versement.numero, description=f"Quote-part {versement.numero} reçue de {payeur}, reçu {recu}")


async def extourner_quote_part_recue(session: AsyncSession, versement: Versement, motif: str,
                                     auth: AuthContext | None) -> EcritureComptable | None:
    """The cancellation of a delivered quote-part, at the federation: the mirror of its entry (approved by a second
    person in annulations/, with the mutual's side). Nothing for another payout."""
    if versement.objet_type != ObjetVersement.QUOTE_PART or versement.organisation_destinataire_id is None:
        return None
    books = ComptabiliteSystemRepository(session)
    original = await books.premiere_ecriture_de_piece(versement.organisation_destinataire_id, versement.numero)
    if original is None:
        return None
    return await contrepasser(session, original, f"Annulation de la quote-part {versement.numero}: {motif}",
                              prefixe_annulation(versement.numero), auth)
