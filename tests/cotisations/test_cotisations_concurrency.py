from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from tests.factories.cotisations import BASE, cotisation_a_venir
from unionflow.models import Cotisation, Paiement, PaiementAllocation, RappelCotisation

pytestmark = pytest.mark.postgresql_only


async def test_parallel_payments_of_one_dues_apply_once(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["MEMBRE"], organisation=org)
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["TRESORIER"])
    due = await cotisation_a_venir(committed_factory, member.membre, org, montant="5000")
    payers = [treasurer] * 4
    responses = await asyncio.gather(*[
        client.put(f"{BASE}/{due.id}/payer", headers=p.headers, json={"montant": "5000"}) for p in payers])
    assert sorted(r.status_code for r in responses) == [200, 400, 400, 400], [r.text for r in responses]
    row = (await committed_db.execute(select(Cotisation).where(Cotisation.id == due.id)
                                      .execution_options(populate_existing=True))).scalar_one()
    assert row.statut == "PAYEE" and row.montant_paye == Decimal("5000")
    assert await committed_db.scalar(select(func.count()).select_from(Paiement).where(
        Paiement.membre_id == member.membre.id)) == 1
    assert await committed_db.scalar(select(func.sum(PaiementAllocation.montant)).where(
        PaiementAllocation.cotisation_id == due.id)) == Decimal("5000")


async def test_parallel_partial_payments_all_apply_without_loss(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["MEMBRE"], organisation=org)
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["TRESORIER"])
    due = await cotisation_a_venir(committed_factory, member.membre, org, montant="3000")
    responses = await asyncio.gather(*[
        client.put(f"{BASE}/{due.id}/payer", headers=treasurer.headers, json={"montant": "1000"}) for _ in range(3)])
    assert [r.status_code for r in responses] == [200, 200, 200]
    row = (await committed_db.execute(select(Cotisation).where(Cotisation.id == due.id)
                                      .execution_options(populate_existing=True))).scalar_one()
    assert row.montant_paye == Decimal("3000") and row.statut == "PAYEE"


async def test_parallel_generation_creates_each_dues_once(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["TRESORIER"])
    for _ in range(5):
        await committed_factory.membre(org)
    annee = date.today().year + 1  # memberships start today; dues follow them (issue 20)
    body = {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": annee, "mois": 6,
            "montant": "1500", "dateEcheance": f"{annee}-06-30"}
    responses = await asyncio.gather(*[
        client.post(f"{BASE}/generer", headers=treasurer.headers, json=body) for _ in range(3)])
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    assert sum(r.json()["creees"] for r in responses) == 6
    assert await committed_db.scalar(select(func.count()).select_from(Cotisation).where(
        Cotisation.organisation_id == org.id)) == 6


async def test_parallel_reminders_send_once(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.membre(org)
    await cotisation_a_venir(committed_factory, member, org)
    responses = await asyncio.gather(*[
        client.post(f"{BASE}/rappels/groupes", headers=treasurer.headers, json=[str(member.id)]) for _ in range(3)])
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    assert sorted(r.json()["envoyes"] for r in responses) == [0, 0, 1]
    assert await committed_db.scalar(select(func.count()).select_from(RappelCotisation).where(
        RappelCotisation.membre_id == member.id)) == 1
