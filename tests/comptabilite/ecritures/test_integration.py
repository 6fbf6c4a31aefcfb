from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from tests.factories.cotisations import adhesion, cotisation
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService


async def booked_entry(db, paiement):
    """The entry the settlement workflow posted with the payment (comptabilite/ecritures/service.py)."""
    return await ComptabiliteSystemRepository(db).ecriture_du_paiement(paiement.id)


async def test_validated_payment_is_booked_once_with_default_accounts(client, factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    cot = await cotisation(db, membre, org, "5000")
    adh = await adhesion(db, membre, org, "2000")
    paiement = await EncaissementService(db, None).enregistrer(
        membre_id=membre.id, organisation_id=org.id, montant=Decimal("7000"), methode="WAVE",
        cibles=[Cible(cotisation_id=cot.id), Cible(adhesion_id=adh.id)])
    ecriture = await booked_entry(db, paiement)
    await db.flush()
    assert ecriture.numero_piece.startswith("MM-") and ecriture.montant_total == Decimal("7000")
    # One entry per payment.
    assert (await db.execute(select(func.count()).select_from(EcritureComptable).where(
        EcritureComptable.paiement_id == paiement.id))).scalar_one() == 1

    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    got = (await client.get(f"/api/comptabilite/ecritures/{ecriture.id}", headers=tresorier.headers)).json()
    assert got["paiementId"] == str(paiement.id) and got["pieceReference"] == paiement.numero_recu
    assert [(lg["numeroCompte"], lg["debit"], lg["credit"]) for lg in got["lignes"]] == [
        ("5521", "7000.00", "0.00"), ("7061", "0.00", "5000.00"), ("7062", "0.00", "2000.00")]

    # A cash payment of a second dues reuses the organisation's accounts and opens the cash journal.
    cot2 = await cotisation(db, membre, org, "3000")
    cash = await EncaissementService(db, None).enregistrer(
        membre_id=membre.id, organisation_id=org.id, montant=Decimal("3000"), methode="ESPECES",
        cibles=[Cible(cotisation_id=cot2.id)])
    booked = await booked_entry(db, cash)
    assert booked.numero_piece.endswith("-000001") and booked.numero_piece.startswith("CAI-")
    numbers = (await db.execute(select(CompteComptable.numero_compte).where(
        CompteComptable.organisation_id == org.id).order_by(CompteComptable.numero_compte))).scalars().all()
    assert numbers == ["5521", "571", "7061", "7062"]
    journals = (await db.execute(select(func.count()).select_from(JournalComptable).where(
        JournalComptable.organisation_id == org.id))).scalar_one()
    assert journals == 2


async def test_unallocated_remainder_goes_to_member_advances(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    cot = await cotisation(db, membre, org, "5000")
    service = EncaissementService(db, None)
    # A transfer announced for the dues, which the member meanwhile settles in cash: the transfer, once
    # confirmed, finds nothing left to pay and becomes the member's credit (account 4191).
    pending = await service.preparer(membre_id=membre.id, organisation_id=org.id, methode="VIREMENT",
                                     cibles=[Cible(cotisation_id=cot.id)])
    await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("3500"),
                              methode="ESPECES", cibles=[Cible(cotisation_id=cot.id)])
    paiement, _ = await service.confirmer(pending.id)
    assert paiement.montant_non_affecte == Decimal("3500")
    ecriture = await booked_entry(db, paiement)
    comptes = {c.id: c.numero_compte for c in (await db.execute(select(CompteComptable))).scalars()}
    assert [(comptes[lg.compte_id], lg.debit, lg.credit) for lg in ecriture.lignes] == [
        ("521", Decimal("5000"), Decimal("0")), ("7061", Decimal("0"), Decimal("1500")),
        ("4191", Decimal("0"), Decimal("3500"))]


async def test_only_validated_payments_are_booked(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    cot = await cotisation(db, membre, org, "5000")
    service = EncaissementService(db, None)
    pending = await service.preparer(membre_id=membre.id, organisation_id=org.id, methode="VIREMENT",
                                     cibles=[Cible(cotisation_id=cot.id)])
    assert await booked_entry(db, pending) is None
    paiement, _ = await service.confirmer(pending.id)
    assert (await booked_entry(db, paiement)).montant_total == Decimal("5000")
