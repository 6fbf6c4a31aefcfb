from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.paiements import paiement_valide
from unionflow.lcbft.service import evaluer_paiement
from unionflow.models import AlerteLcbFt, AuditLog
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService


async def test_default_thresholds_raise_operation_cash_and_cumulated_alerts(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    small = await paiement_valide(db, membre, org, "4999999", "WAVE")
    assert await evaluer_paiement(db, small) == []

    big = await paiement_valide(db, membre, org, "5000000", "WAVE")  # threshold itself: inclusive
    alerts = await evaluer_paiement(db, big)
    # 4 999 999 + 5 000 000 < 10 000 000: no cumulated alert yet.
    assert [a.type_alerte for a in alerts] == ["SEUIL_OPERATION"]
    assert await evaluer_paiement(db, big) == []  # one alert per payment and kind, whoever calls twice

    cash = await paiement_valide(db, membre, org, "1000000", "ESPECES")
    alerts = await evaluer_paiement(db, cash)
    assert sorted(a.type_alerte for a in alerts) == ["CUMUL_PERIODE", "ESPECES_ELEVEES"]
    cumul = next(a for a in alerts if a.type_alerte == "CUMUL_PERIODE")
    assert cumul.montant_cumule == Decimal("10999999") and cumul.periode_jours == 30

    # Same member, same window: the cumulated alert is not repeated on every later payment.
    later = await paiement_valide(db, membre, org, "100", "WAVE")
    assert await evaluer_paiement(db, later) == []
    audited = (await db.execute(select(AuditLog).where(AuditLog.module == "LCB_FT",
                                                       AuditLog.organisation_id == org.id))).scalars().all()
    assert len(audited) == 3 and all(a.utilisateur == "systeme" for a in audited)


async def test_cumul_only_counts_the_member_window_and_validated_payments(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    autre = await factory.membre(org)
    old = await paiement_valide(db, membre, org, "4000000", date_paiement=datetime.now(UTC) - timedelta(days=45))
    assert await evaluer_paiement(db, old) == []
    await paiement_valide(db, autre, org, "4000000")
    cancelled = await paiement_valide(db, membre, org, "4000000")
    cancelled.statut = "ANNULE"
    assert await evaluer_paiement(db, cancelled) == []
    recent = await paiement_valide(db, membre, org, "4000000")
    assert await evaluer_paiement(db, recent) == []
    third = await paiement_valide(db, membre, org, "2000000")
    assert [a.type_alerte for a in await evaluer_paiement(db, third)] == []
    fourth = await paiement_valide(db, membre, org, "4000000")
    assert [a.type_alerte for a in await evaluer_paiement(db, fourth)] == ["CUMUL_PERIODE"]


async def test_organisation_thresholds_override_configuration(client, db, factory):
    org = await factory.organisation()
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    put = await client.put(f"/api/parametres-lcb-ft/organisation/{org.id}", headers=admin_org.headers, json={
        "seuilOperation": "100000", "seuilCumul": "150000", "periodeCumulJours": 7, "seuilEspeces": "50000"})
    assert put.status_code == 200, put.text
    membre = await factory.membre(org)
    paiement = await paiement_valide(db, membre, org, "120000", "ESPECES")
    alerts = await evaluer_paiement(db, paiement)
    assert sorted(a.type_alerte for a in alerts) == ["ESPECES_ELEVEES", "SEUIL_OPERATION"]
    assert {a.type_alerte: a.seuil for a in alerts}["SEUIL_OPERATION"] == Decimal("100000")


async def test_workflow_screens_payments(db, factory):
    """A payment recorded through the settlement workflow is screened in the same transaction."""
    org = await factory.organisation()
    membre = await factory.membre(org)
    cot = await cotisation(db, membre, org, "6000000")
    paiement = await EncaissementService(db, None).enregistrer(
        membre_id=membre.id, organisation_id=org.id, montant=Decimal("6000000"), methode="WAVE",
        cibles=[Cible(cotisation_id=cot.id)])
    types = (await db.execute(select(AlerteLcbFt.type_alerte).where(
        AlerteLcbFt.paiement_id == paiement.id))).scalars().all()
    assert "SEUIL_OPERATION" in types
