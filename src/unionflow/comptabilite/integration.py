"""Booking validated payments: called by the settlement workflow once a payment is VALIDE.

One entry per payment (``ecriture_comptable.paiement_id`` is unique, so a second call returns the first
entry): debit the treasury account of the payment method, credit dues income and adhesion-fee income by the
allocations, and the unallocated remainder to members' advances. Default accounts and journals are created
on first use, SYSCOHADA-like, so an organisation that never opened its books still gets correct ones.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.service import MODULE, Ligne, classe_de, poster_ecriture
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState
from unionflow.models import (
    CompteComptable,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    Paiement,
    PaiementAllocation,
)

ZERO = Decimal("0")

COMPTES_PAR_DEFAUT = {
    "571": "Caisse",
    "521": "Banque",
    "5215": "Wave",
    "5216": "Orange Money",
    "5217": "Free Money",
    "4191": "Membres, avances reçues",
    "7061": "Cotisations",
    "7062": "Droits d'adhésion",
    "131": "Résultat net : excédent",
    "139": "Résultat net : déficit",
}
# Payment method → (treasury account, journal code).
TRESORERIE = {
    "ESPECES": ("571", "CAI"),
    "AUTRE": ("571", "CAI"),
    "VIREMENT": ("521", "BQ"),
    "CHEQUE": ("521", "BQ"),
    "CARTE": ("521", "BQ"),
    "WAVE": ("5215", "MM"),
    "ORANGE_MONEY": ("5216", "MM"),
    "FREE_MONEY": ("5217", "MM"),
}
JOURNAUX_PAR_DEFAUT = {
    "CAI": ("Journal de caisse", "CAISSE"),
    "BQ": ("Journal de banque", "BANQUE"),
    "MM": ("Journal mobile money", "MOBILE_MONEY"),
    "CLO": ("Journal de clôture", "CLOTURE"),
}


async def compte_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, numero: str) -> CompteComptable:
    stmt = select(CompteComptable).where(CompteComptable.organisation_id == organisation_id,
                                         CompteComptable.numero_compte == numero)
    compte = (await session.execute(stmt)).scalar_one_or_none()
    if compte is not None:
        return compte
    classe, type_compte = classe_de(numero)
    compte = CompteComptable(organisation_id=organisation_id, numero_compte=numero,
                             libelle=COMPTES_PAR_DEFAUT[numero], classe=classe, type_compte=type_compte, actif=True)
    try:
        # Two first payments of an organisation may race to open the same account: the loser re-reads it.
        async with session.begin_nested():
            session.add(compte)
            await session.flush()
    except IntegrityError:
        return (await session.execute(stmt)).scalar_one()
    return compte


async def journal_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, code: str) -> JournalComptable:
    stmt = select(JournalComptable).where(JournalComptable.organisation_id == organisation_id,
                                          JournalComptable.code == code)
    journal = (await session.execute(stmt)).scalar_one_or_none()
    if journal is not None:
        return journal
    libelle, type_journal = JOURNAUX_PAR_DEFAUT[code]
    journal = JournalComptable(organisation_id=organisation_id, code=code, libelle=libelle,
                               type_journal=type_journal, actif=True)
    try:
        async with session.begin_nested():
            session.add(journal)
            await session.flush()
    except IntegrityError:
        return (await session.execute(stmt)).scalar_one()
    return journal


async def comptabiliser_paiement(session: AsyncSession, paiement: Paiement,
                                 auth: AuthContext | None = None) -> EcritureComptable:
    """Book a validated payment; idempotent (returns the existing entry when already booked)."""
    if paiement.statut != "VALIDE":
        raise InvalidState(f"Seul un paiement validé est comptabilisé (statut: {paiement.statut})")
    existing = (await session.execute(
        select(EcritureComptable).where(EcritureComptable.paiement_id == paiement.id))).scalar_one_or_none()
    if existing is not None:
        return existing
    numero_tresorerie, code_journal = TRESORERIE.get(paiement.methode, TRESORERIE["AUTRE"])
    org = paiement.organisation_id
    allocations = list((await session.execute(
        select(PaiementAllocation).where(PaiementAllocation.paiement_id == paiement.id))).scalars())
    cotisations = sum((a.montant for a in allocations if a.cotisation_id is not None), ZERO)
    adhesions = sum((a.montant for a in allocations if a.adhesion_id is not None), ZERO)
    reste = paiement.montant - cotisations - adhesions

    lignes = [Ligne(await compte_par_defaut(session, org, numero_tresorerie), debit=paiement.montant, credit=ZERO,
                    libelle=f"Reçu {paiement.numero_recu} ({paiement.methode})")]
    for numero, montant, libelle in (("7061", cotisations, "Cotisations"), ("7062", adhesions, "Droits d'adhésion"),
                                     ("4191", reste, "Trop-perçu en attente d'affectation")):
        if montant > ZERO:
            lignes.append(Ligne(await compte_par_defaut(session, org, numero), debit=ZERO, credit=montant,
                                libelle=libelle))
    journal = await journal_par_defaut(session, org, code_journal)
    date_ecriture = (paiement.date_paiement or paiement.created_at).date()
    try:
        # A concurrent booking of the same payment wins the unique paiement_id: return its entry instead.
        async with session.begin_nested():
            ecriture = await poster_ecriture(session, journal=journal, date_ecriture=date_ecriture,
                                             libelle=f"Encaissement {paiement.numero_recu}", lignes=lignes,
                                             piece_reference=paiement.numero_recu, paiement_id=paiement.id,
                                             cree_par=auth.actor_name if auth else "systeme")
    except IntegrityError:
        return (await session.execute(
            select(EcritureComptable).where(EcritureComptable.paiement_id == paiement.id))).scalar_one()
    await audit.record(session, auth, action="CREATE", module=MODULE, entite_type="EcritureComptable",
                       entite_id=ecriture.id, organisation_id=org, after=audit.snapshot(ecriture),
                       description=f"Comptabilisation du paiement {paiement.numero_recu}")
    return ecriture


async def extourner_paiement(session: AsyncSession, paiement: Paiement, motif: str,
                             auth: AuthContext | None = None) -> EcritureComptable | None:
    """Book the reversal of a cancelled or refunded payment: the mirror of its entry (debits and credits
    swapped), dated today, so the books keep both movements instead of an edited history."""
    original = (await session.execute(
        select(EcritureComptable).where(EcritureComptable.paiement_id == paiement.id))).scalar_one_or_none()
    if original is None:
        return None
    lignes_originales = list((await session.execute(
        select(LigneEcriture, CompteComptable).join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
        .where(LigneEcriture.ecriture_id == original.id).order_by(LigneEcriture.id))).all())
    lignes = [Ligne(compte, debit=ligne.credit, credit=ligne.debit, libelle=f"Extourne: {ligne.libelle or ''}")
              for ligne, compte in lignes_originales]
    journal = await session.get(JournalComptable, original.journal_id)
    assert journal is not None
    ecriture = await poster_ecriture(
        session, journal=journal, date_ecriture=datetime.now(UTC).date(),
        libelle=f"Extourne {paiement.numero_recu} ({paiement.statut}): {motif}"[:300],
        lignes=lignes, piece_reference=f"EXT-{paiement.numero_recu}",
        cree_par=auth.actor_name if auth else "systeme")
    await audit.record(session, auth, action="CREATE", module=MODULE, entite_type="EcritureComptable",
                       entite_id=ecriture.id, organisation_id=paiement.organisation_id, severite="WARNING",
                       after=audit.snapshot(ecriture), description=f"Extourne du paiement {paiement.numero_recu}")
    return ecriture
