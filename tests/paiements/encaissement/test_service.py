"""The settlement workflow's money rules, exercised directly on the database."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from unionflow.core.errors import InvalidInput, InvalidState
from unionflow.models import Adhesion, AuditLog, Cotisation, PaiementAllocation
from unionflow.models.paiement import StatutPaiement
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService


async def _dues(db, membre, org, montant="10000", **values):
    cotisation = Cotisation(numero_reference=f"COT-T-{uuid.uuid4().hex[:8]}", membre_id=membre.id,
                            organisation_id=org.id, type_cotisation="MENSUELLE", annee=2026, mois=11,
                            montant_du=Decimal(montant), date_echeance=date.today() + timedelta(days=10), **values)
    db.add(cotisation)
    await db.flush()
    return cotisation


async def _adhesion(db, membre, org, frais="5000", statut="APPROUVEE"):
    adhesion = Adhesion(numero_reference=f"ADH-T-{uuid.uuid4().hex[:8]}", membre_id=membre.id,
                        organisation_id=org.id, statut=statut, date_demande=date.today(),
                        frais_adhesion=Decimal(frais))
    db.add(adhesion)
    await db.flush()
    return adhesion


@pytest.fixture
async def setup(factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    return org, membre, EncaissementService(db, None)


async def test_partial_then_full_payment_moves_dues_status(setup, db):
    org, membre, service = setup
    dues = await _dues(db, membre, org)
    first = await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("4000"),
                                      methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    assert dues.statut == "PARTIELLEMENT_PAYEE" and dues.montant_paye == Decimal("4000")
    assert first.statut == "VALIDE" and first.numero_recu.startswith("REC-")
    await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("6000"),
                              methode="WAVE", cibles=[Cible(cotisation_id=dues.id)])
    assert dues.statut == "PAYEE" and dues.montant_paye == Decimal("10000")
    with pytest.raises(InvalidState):
        await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("1"),
                                  methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])


async def test_one_payment_spread_over_several_dues_in_order(setup, db):
    org, membre, service = setup
    older = await _dues(db, membre, org, "3000")
    newer = await _dues(db, membre, org, "3000")
    paiement = await service.enregistrer(
        membre_id=membre.id, organisation_id=org.id, montant=Decimal("4500"), methode="ESPECES",
        cibles=[Cible(cotisation_id=older.id), Cible(cotisation_id=newer.id)])
    assert (older.statut, newer.statut) == ("PAYEE", "PARTIELLEMENT_PAYEE")
    parts = (await db.execute(select(PaiementAllocation.montant).where(
        PaiementAllocation.paiement_id == paiement.id).order_by(PaiementAllocation.montant))).scalars().all()
    assert parts == [Decimal("1500"), Decimal("3000")]


async def test_overpayment_and_foreign_targets_are_refused(setup, db, factory):
    org, membre, service = setup
    dues = await _dues(db, membre, org, "2000")
    with pytest.raises(InvalidInput):
        await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("2500"),
                                  methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    other = await factory.membre(org)
    with pytest.raises(InvalidInput):
        await service.enregistrer(membre_id=other.id, organisation_id=org.id, montant=Decimal("100"),
                                  methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    with pytest.raises(InvalidInput):
        await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("0"),
                                  methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    assert dues.montant_paye == Decimal("0")


async def test_cancelled_dues_and_unapproved_adhesion_cannot_be_paid(setup, db):
    org, membre, service = setup
    cancelled = await _dues(db, membre, org, statut="ANNULEE")
    pending = await _adhesion(db, membre, org, statut="EN_ATTENTE")
    with pytest.raises(InvalidState):
        await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("10"),
                                  methode="ESPECES", cibles=[Cible(cotisation_id=cancelled.id)])
    with pytest.raises(InvalidState):
        await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("10"),
                                  methode="ESPECES", cibles=[Cible(adhesion_id=pending.id)])


async def test_adhesion_fee_in_two_parts_becomes_paid(setup, db):
    org, membre, service = setup
    adhesion = await _adhesion(db, membre, org, "5000")
    await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("2000"),
                              methode="ESPECES", cibles=[Cible(adhesion_id=adhesion.id)])
    assert adhesion.statut == "APPROUVEE" and adhesion.montant_paye == Decimal("2000")
    await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("3000"),
                              methode="ESPECES", cibles=[Cible(adhesion_id=adhesion.id)])
    assert adhesion.statut == "PAYEE"


async def test_pending_payment_is_confirmed_once_and_never_regresses(setup, db):
    org, membre, service = setup
    dues = await _dues(db, membre, org, "7000")
    pending = await service.preparer(membre_id=membre.id, organisation_id=org.id, methode="WAVE",
                                     cibles=[Cible(cotisation_id=dues.id)])
    assert pending.statut == "EN_ATTENTE" and pending.montant == Decimal("7000")
    assert dues.montant_paye == Decimal("0"), "nothing is credited before confirmation"
    confirmed, applied = await service.confirmer(pending.id, reference_externe="T_WAVE_1")
    assert applied and confirmed.statut == "VALIDE" and dues.statut == "PAYEE"
    _, applied_again = await service.confirmer(pending.id)
    assert not applied_again and dues.montant_paye == Decimal("7000")
    closed = await service.clore(pending.id, StatutPaiement.ECHOUE)
    assert closed.statut == "VALIDE", "a failure notice after success must not regress the payment"


async def test_money_received_for_dues_settled_meanwhile_becomes_credit(setup, db):
    org, membre, service = setup
    dues = await _dues(db, membre, org, "5000")
    pending = await service.preparer(membre_id=membre.id, organisation_id=org.id, methode="WAVE",
                                     cibles=[Cible(cotisation_id=dues.id)])
    await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("5000"),
                              methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    confirmed, _ = await service.confirmer(pending.id)
    assert confirmed.statut == "VALIDE" and confirmed.montant_non_affecte == Decimal("5000")
    assert dues.montant_paye == Decimal("5000"), "dues are never paid twice"


async def test_every_payment_is_audited(setup, db):
    org, membre, service = setup
    dues = await _dues(db, membre, org, "1000")
    paiement = await service.enregistrer(membre_id=membre.id, organisation_id=org.id, montant=Decimal("1000"),
                                         methode="ESPECES", cibles=[Cible(cotisation_id=dues.id)])
    count = (await db.execute(select(func.count()).select_from(AuditLog).where(
        AuditLog.entite_id.in_([str(paiement.id), str(dues.id)])))).scalar_one()
    assert count == 2
