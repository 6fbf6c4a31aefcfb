"""What an approved request to undo money does, in the approver's transaction (paiements/annulations/service.py): the
reversal through the one workflow of each kind of money, the refund receipt's number, the member's notice."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.audit.repository import personnes
from unionflow.comptabilite.ecritures.federation import extourner_quote_part_recue
from unionflow.comptabilite.ecritures.service import contrepasser, extourner_versement
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState, RegleMetier
from unionflow.core.numbering import next_value
from unionflow.models import EcritureComptable
from unionflow.models.annulation import TypeAnnulation, VueAnnulation
from unionflow.models.approbation import DemandeApprobation
from unionflow.models.paiement import StatutPaiement
from unionflow.models.versement import StatutVersement
from unionflow.notifications import workflow as notices
from unionflow.paiements.avoirs.service import AvoirService
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.encaissement.workflow import EncaissementService
from unionflow.paiements.recus.numerotation import code_serie, compteur_remboursements, numero_remboursement
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.paiements.versements.repository import VersementRepository
from unionflow.tresoreries.repository import TresorerieSystemRepository
from unionflow.tresoreries.service import verifier_mouvements, verifier_sortie
from unionflow.wave.repository import WaveCheckoutRepository

ZERO = Decimal("0")

T = TypeAnnulation
# Pieces the system posts for money it tracks elsewhere: undone through their payment or payout, never here.
PIECES_AUTOMATIQUES = ("EXT-", "ANN-", "CTP-", "VER-")


def contrepassable(ecriture: EcritureComptable) -> None:
    """Only a manual entry is reversed as such: a payment's or a payout's entry follows its money."""
    if ecriture.paiement_id is not None:
        raise RegleMetier("Cette écriture comptabilise un paiement: demandez l'annulation ou le remboursement du "
                          "paiement")
    if (ecriture.piece_reference or "").startswith(PIECES_AUTOMATIQUES):
        raise RegleMetier("Cette écriture suit un versement ou une extourne: elle ne se contrepasse pas à la main")


# What each kind of money records about who recorded or confirmed it (its audit trail): the payment validated
# (recorded at the counter, or a declaration confirmed) or declared, the payout created or confirmed
# (VERSEMENT_REUSSI, …), the entry created.
ACTES = {"Paiement": ("VALIDER_PAIEMENT", "DECLARER", "CONFIRMER"), "Versement": ("CREER", "VERSEMENT_"),
         "EcritureComptable": ("CREER",)}


async def auteurs(session: AsyncSession, demande: DemandeApprobation) -> set[str]:
    """Who recorded or confirmed the money the request undoes, by person key (issuer, subject): they may ask,
    never approve. Read from the money's audit trail, which names each actor by person key."""
    vue = VueAnnulation(demande)
    for entite, objet in (("Paiement", vue.paiement_id), ("Versement", vue.versement_id),
                          ("EcritureComptable", vue.ecriture_id)):
        if objet is not None:
            return await personnes(session, entite, objet, ACTES[entite])
    return set()


async def executer(session: AsyncSession, auth: AuthContext, settings: Settings | None,
                   demande: VueAnnulation) -> None:
    kind = T(demande.type_annulation)
    if kind is T.ANNULATION_PAIEMENT:
        assert demande.paiement_id is not None
        await _sortie_possible(session, demande.paiement_id)
        await EncaissementService(session, auth).reverser(demande.paiement_id, StatutPaiement.ANNULE, demande.motif)
    elif kind is T.REMBOURSEMENT_PAIEMENT:
        await _rembourser(session, auth, settings, demande)
    elif kind is T.ANNULATION_VERSEMENT:
        await _annuler_versement(session, auth, demande)
    elif kind is T.REMBOURSEMENT_AVOIR:
        assert demande.membre_id is not None
        numero = await _numero_remboursement(session, demande.organisation_id)
        sorties = await AvoirService(session, auth).rembourser(demande.membre_id, demande.organisation_id,
                                                               demande.montant, numero, demande.motif)
        # The refund is booked out of the treasuries the credit came in through: none may end below its floor
        # (a cash box below zero, a bank beyond its overdraft): checked on the balance after it, under the lock.
        for tresorerie_id in sorted(sorties):
            tresorerie = await TresorerieSystemRepository(session).get(tresorerie_id)
            if tresorerie is not None:
                await verifier_sortie(session, tresorerie, ZERO)
        demande.numeroter(numero)
    else:
        assert demande.ecriture_id is not None
        books = ComptabiliteSystemRepository(session)
        original = await books.get(demande.ecriture_id)
        assert original is not None
        # The mirror takes back what the entry put in a treasury: the treasury rule holds for it as for a payout.
        miroir = [(compte.numero_compte, ligne.credit, ligne.debit)
                  for ligne, compte in await books.lignes_avec_comptes(original.id)]
        await verifier_mouvements(session, original.organisation_id, miroir, auth)
        await contrepasser(session, original, f"Contrepassation de {original.numero_piece}: {demande.motif}",
                           f"CTP-{original.numero_piece}", auth)


async def _sortie_possible(session: AsyncSession, paiement_id: uuid.UUID) -> None:
    """Undoing a payment takes its money back out of the treasury it entered (the reversal credits that account):
    a cash box never goes below zero for it, a bank only within its overdraft. Payments booked before
    treasuries name none and are not checked."""
    paiement = await PaiementSystemRepository(session).get(paiement_id)
    if paiement is None or paiement.tresorerie_id is None or paiement.statut != StatutPaiement.VALIDE:
        return
    tresorerie = await TresorerieSystemRepository(session).get(paiement.tresorerie_id)
    if tresorerie is not None:
        await verifier_sortie(session, tresorerie, paiement.montant)


async def _rembourser(session: AsyncSession, auth: AuthContext, settings: Settings | None,
                      demande: VueAnnulation) -> None:
    assert demande.paiement_id is not None
    paiement = await PaiementSystemRepository(session).get_for_update(demande.paiement_id)
    assert paiement is not None
    if paiement.statut != StatutPaiement.VALIDE:
        raise InvalidState(f"Seul un paiement validé peut être remboursé (statut: {paiement.statut})")
    await _sortie_possible(session, paiement.id)
    checkout = await WaveCheckoutRepository(session).lock_by_paiement(paiement.id)
    if checkout is not None:
        # Wave first: if it refuses (502/503) the transaction rolls back and the request stays pending.
        assert settings is not None
        await WaveCheckoutService(session, auth, settings).rembourser_session(paiement, checkout)
    await EncaissementService(session, auth).reverser(paiement.id, StatutPaiement.REMBOURSE, demande.motif)
    demande.numeroter(await _numero_remboursement(session, paiement.organisation_id))


async def _numero_remboursement(session: AsyncSession, organisation_id: uuid.UUID) -> str:
    """The refund receipt's number in the organisation's own gap-free series, as its
    receipts: RMB-<code>-<year>-NNNNNN; the counter row is the organisation's, locked until commit."""
    annee = datetime.now(UTC).year
    # The counter first, then the code (which the first receipt writes): paiements/encaissement's lock order.
    valeur = await next_value(session, compteur_remboursements(organisation_id, annee))
    code = await code_serie(session, organisation_id)
    return numero_remboursement(code, annee, valeur)


async def _annuler_versement(session: AsyncSession, auth: AuthContext, demande: VueAnnulation) -> None:
    assert demande.versement_id is not None
    versement = await VersementRepository(session, None).get(demande.versement_id, for_update=True)
    assert versement is not None
    if versement.statut != StatutVersement.REUSSI:
        raise InvalidState(f"Seul un versement exécuté s'annule ainsi (statut: {versement.statut})")
    before = audit.snapshot(versement, ["statut", "motif_echec"])
    versement.statut = StatutVersement.ANNULE
    versement.motif_echec = f"Annulé après exécution: {demande.motif}"[:500]
    await session.flush()
    await extourner_versement(session, versement, demande.motif, auth)
    # A quote-part is undone on both sides: the federation's receipt entry is reversed too (docs/federation.md).
    await extourner_quote_part_recue(session, versement, demande.motif, auth)
    await audit.record(session, auth, action="ANNULER_VERSEMENT", module="VERSEMENTS", entite_type="Versement",
                       entite_id=versement.id, organisation_id=versement.organisation_id, before=before,
                       after=audit.snapshot(versement, ["statut", "motif_echec"]), severite="WARNING",
                       description=f"Versement {versement.numero} annulé: demandé par {demande.demande_par}, "
                                   f"approuvé par {auth.actor_name}. Motif: {demande.motif}")


async def avertir_membre(session: AsyncSession, demande: VueAnnulation, auteur: str) -> None:
    """The member whose payment was cancelled or refunded is told, with the reason."""
    if demande.membre_id is None or demande.paiement_id is None:
        return
    await notices.paiement_annule_ou_rembourse(session, demande, auteur)
