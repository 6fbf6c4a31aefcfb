"""One Idempotency-Key mechanism on every money-moving operation: a retry after a lost answer is applied once,
the same key on another request is 422, and the header is declared in the OpenAPI of each operation."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from tests.factories.cotisations import adhesion, cotisation
from unionflow.models import Paiement, Versement

MONEY_OPERATIONS = [
    ("post", "/api/paiements"),
    ("put", "/api/cotisations/{id}/payer"),
    ("post", "/api/adhesions/{id}/paiement"),
    ("post", "/api/paiements/{id}/annuler"),
    ("post", "/api/paiements/{id}/rembourser"),
    ("post", "/api/paiements/wave/checkout"),
    ("post", "/api/versements"),
    ("post", "/api/versements/{id}/confirmer"),
    ("post", "/api/versements/{id}/annuler"),
    ("post", "/api/annulations/{id}/approuver"),
    ("post", "/api/comptabilite/ecritures/{id}/contrepasser"),
]


async def _setup(factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER",
                                                                            "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, member


async def _payments(db, member) -> int:
    return (await db.execute(select(func.count()).select_from(Paiement)
                             .where(Paiement.membre_id == member.membre.id))).scalar_one()


@pytest.mark.parametrize(("method", "path"), MONEY_OPERATIONS)
async def test_header_declared_on_every_money_operation(client, method, path):
    operation = (await client.get("/openapi.json")).json()["paths"][path][method]
    names = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert "Idempotency-Key" in names
    assert "422" in operation["responses"]


async def test_partial_dues_payment_retried_after_lost_answer_is_recorded_once(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = [await cotisation(db, member.membre, org, 10000) for _ in range(3)]
    for row in dues:
        headers = {**treasurer.headers, "Idempotency-Key": f"guichet-{row.id}"}
        first = await client.put(f"/api/cotisations/{row.id}/payer", headers=headers, json={"montant": "2500"})
        retry = await client.put(f"/api/cotisations/{row.id}/payer", headers=headers, json={"montant": "2500"})
        assert first.status_code == retry.status_code == 200, first.text
        assert retry.json() == first.json() and retry.headers["Idempotent-Replayed"] == "true"
        other = await client.put(f"/api/cotisations/{row.id}/payer", headers=headers, json={"montant": "3000"})
        assert other.status_code == 422
        await db.refresh(row)
        assert row.montant_paye == Decimal("2500") and row.statut == "PARTIELLEMENT_PAYEE"
    assert await _payments(db, member) == 3
    # The same key on another dues is another request, not a replay.
    reused = await client.put(f"/api/cotisations/{dues[1].id}/payer", json={"montant": "2500"},
                              headers={**treasurer.headers, "Idempotency-Key": f"guichet-{dues[0].id}"})
    assert reused.status_code == 422


async def test_adhesion_fee_payment_retried_is_recorded_once(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    adh = await adhesion(db, member.membre, org, 10000)
    headers = {**treasurer.headers, "Idempotency-Key": "frais-1"}
    params = {"montantPaye": "4000"}
    first = await client.post(f"/api/adhesions/{adh.id}/paiement", headers=headers, params=params)
    retry = await client.post(f"/api/adhesions/{adh.id}/paiement", headers=headers, params=params)
    assert first.status_code == retry.status_code == 200, first.text
    assert retry.json()["recu"] == first.json()["recu"]
    assert (await client.post(f"/api/adhesions/{adh.id}/paiement", headers=headers,
                              params={"montantPaye": "5000"})).status_code == 422
    await db.refresh(adh)
    assert adh.montant_paye == Decimal("4000") and await _payments(db, member) == 1


async def test_refund_retried_answers_the_stored_refund(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = await cotisation(db, member.membre, org, 5000)
    paid = (await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "5000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})).json()
    headers = {**treasurer.headers, "Idempotency-Key": "rembourse-1"}
    motif = {"motif": "Cotisation payée deux fois"}
    first = await client.post(f"/api/paiements/{paid['id']}/rembourser", headers=headers, json=motif)
    retry = await client.post(f"/api/paiements/{paid['id']}/rembourser", headers=headers, json=motif)
    # The request (issue 19: a second person approves) is opened once; the retry answers it again.
    assert first.status_code == retry.status_code == 202, first.text
    assert retry.json() == first.json() and retry.json()["statut"] == "EN_ATTENTE"
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    approve = {**president.headers, "Idempotency-Key": "rembourse-1-ok"}
    url = f"/api/annulations/{first.json()['id']}/approuver"
    done = await client.post(url, headers=approve, json={})
    again = await client.post(url, headers=approve, json={})
    assert done.status_code == again.status_code == 200, done.text
    assert again.json() == done.json() and done.json()["numeroRemboursement"].startswith("RMB-")
    # Without the key, a second refund of the same payment is refused: it is no longer validated.
    assert (await client.post(f"/api/paiements/{paid['id']}/rembourser", headers=treasurer.headers,
                              json=motif)).status_code == 400


async def test_payout_creation_and_confirmation_retried_apply_once(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT",
                                                                            "ADMIN_ORGANISATION"])
    dues = await cotisation(db, member.membre, org, 20000)
    assert (await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "20000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})).status_code == 201
    payout = {"organisationId": str(org.id), "montant": "15000", "mode": "MANUEL", "objetType": "COTISATIONS",
              "motif": "Reversement à la fédération", "beneficiaireNom": "Fédération de Dakar"}
    headers = {**treasurer.headers, "Idempotency-Key": "ver-1"}
    created = await client.post("/api/versements", headers=headers, json=payout)
    again = await client.post("/api/versements", headers=headers, json=payout)
    assert created.status_code == again.status_code == 201 and created.json() == again.json()
    count = (await db.execute(select(func.count()).select_from(Versement)
                              .where(Versement.organisation_id == org.id))).scalar_one()
    assert count == 1
    confirm = {**president.headers, "Idempotency-Key": "ver-1-ok"}
    url = f"/api/versements/{created.json()['id']}/confirmer"
    done = await client.post(url, headers=confirm, json={"referenceExterne": "VIR-2026-001"})
    retry = await client.post(url, headers=confirm, json={"referenceExterne": "VIR-2026-001"})
    assert done.status_code == retry.status_code == 200, done.text
    assert retry.json()["statut"] == "REUSSI" and retry.headers["Idempotent-Replayed"] == "true"
    assert (await client.post(url, headers=confirm, json={"referenceExterne": "VIR-2026-002"})).status_code == 422


@pytest.mark.postgresql_only
async def test_concurrent_retries_of_a_partial_payment_apply_once(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(committed_db, member.membre, org, 10000, commit=True)
    headers = {**treasurer.headers, "Idempotency-Key": "double-tap-payer"}
    answers = await asyncio.gather(*[client.put(f"/api/cotisations/{dues.id}/payer", headers=headers,
                                                json={"montant": "2500"}) for _ in range(5)])
    assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers]
    assert len({a.json()["recu"]["numeroRecu"] for a in answers}) == 1
    await committed_db.refresh(dues)
    assert dues.montant_paye == Decimal("2500") and await _payments(committed_db, member) == 1
