"""Real commits and real parallelism (PostgreSQL): duplicates must not apply twice."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, Cotisation, Paiement, PaiementAllocation, WaveEvenement
from unionflow.wave.simulateur import completed_event, signed_webhook

SECRET = "wave-test-webhook-secret"


@pytest.mark.postgresql_only
async def test_ten_parallel_identical_webhooks_apply_once(client, committed_factory, committed_db, wave):
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(committed_db, member.membre, org, 7000, commit=True)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(body["checkoutId"])))

    responses = await asyncio.gather(*[client.post("/api/paiements/wave/webhook", content=raw, headers=headers)
                                       for _ in range(10)])
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    results = sorted(r.json()["resultat"] for r in responses)
    assert results == ["APPLIQUE"] + ["DEJA_TRAITE"] * 9

    dues_id = dues.id
    committed_db.expire_all()
    refreshed = await committed_db.get(Cotisation, dues_id)
    assert refreshed is not None and refreshed.montant_paye == 7000 and refreshed.statut == "PAYEE"
    allocations = (await committed_db.execute(select(func.count()).select_from(PaiementAllocation).where(
        PaiementAllocation.cotisation_id == dues_id))).scalar_one()
    assert allocations == 1
    assert (await committed_db.execute(select(func.count()).select_from(WaveEvenement))).scalar_one() == 1
    validated = (await committed_db.execute(select(func.count()).select_from(AuditLog).where(
        AuditLog.type_action == "VALIDER_PAIEMENT", AuditLog.entite_id == body["paiementId"]))).scalar_one()
    assert validated == 1


@pytest.mark.postgresql_only
async def test_parallel_requests_with_one_idempotency_key_create_one_payment(client, committed_factory,
                                                                           committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(committed_db, member.membre, org, 6000, commit=True)
    payload = {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2000",
               "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]}
    headers = {**treasurer.headers, "Idempotency-Key": "double-tap"}
    responses = await asyncio.gather(*[client.post("/api/paiements", headers=headers, json=payload)
                                       for _ in range(6)])
    assert {r.status_code for r in responses} == {201}, [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    dues_id, membre_id = dues.id, member.membre.id
    count = (await committed_db.execute(select(func.count()).select_from(Paiement).where(
        Paiement.membre_id == membre_id))).scalar_one()
    assert count == 1
    dues_id = dues.id
    committed_db.expire_all()
    refreshed = await committed_db.get(Cotisation, dues_id)
    assert refreshed is not None and refreshed.montant_paye == 2000
