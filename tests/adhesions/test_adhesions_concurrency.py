from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from unionflow.models import Adhesion, AuditLog, MembreOrganisation, Paiement

pytestmark = pytest.mark.postgresql_only
BASE = "/api/adhesions"


async def _pending(client, committed_factory):
    org = await committed_factory.organisation()
    admins = [await committed_factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
              for _ in range(2)]
    applicant = await committed_factory.actor(["MEMBRE"])
    created = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "5000"})
    assert created.status_code == 201, created.text
    return org, admins, applicant, created.json()["id"]


async def test_parallel_approvals_apply_once(client, committed_factory, committed_db):
    _, admins, applicant, adh_id = await _pending(client, committed_factory)
    responses = await asyncio.gather(*[
        client.post(f"{BASE}/{adh_id}/approuver", headers=admins[i % 2].headers) for i in range(4)])
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 400, 400, 400], [r.text for r in responses]
    memberships = await committed_db.scalar(select(func.count()).select_from(MembreOrganisation).where(
        MembreOrganisation.membre_id == applicant.membre.id))
    assert memberships == 1
    approvals = await committed_db.scalar(select(func.count()).select_from(AuditLog).where(
        AuditLog.entite_id == adh_id, AuditLog.type_action == "APPROUVER"))
    assert approvals == 1


async def test_parallel_payments_apply_once(client, committed_factory, committed_db):
    _, admins, applicant, adh_id = await _pending(client, committed_factory)
    assert (await client.post(f"{BASE}/{adh_id}/approuver", headers=admins[0].headers)).status_code == 200
    responses = await asyncio.gather(*[
        client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "5000"}, headers=admins[0].headers)
        for _ in range(3)])
    assert sorted(r.status_code for r in responses) == [200, 400, 400], [r.text for r in responses]
    adhesion = (await committed_db.execute(
        select(Adhesion).where(Adhesion.numero_reference.isnot(None), Adhesion.membre_id == applicant.membre.id)
        .execution_options(populate_existing=True))).scalar_one()
    assert adhesion.statut == "PAYEE" and adhesion.montant_paye == Decimal("5000")
    paid = await committed_db.scalar(select(func.count()).select_from(Paiement).where(
        Paiement.membre_id == applicant.membre.id))
    assert paid == 1


async def test_parallel_member_declarations_record_one_pending_payment(client, committed_factory, committed_db):
    _, admins, applicant, adh_id = await _pending(client, committed_factory)
    assert (await client.post(f"{BASE}/{adh_id}/approuver", headers=admins[0].headers)).status_code == 200
    responses = await asyncio.gather(*[
        client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "5000"}, headers=applicant.headers)
        for _ in range(3)])
    assert sorted(r.status_code for r in responses) == [200, 409, 409], [r.text for r in responses]
    statuses = list((await committed_db.execute(select(Paiement.statut).where(
        Paiement.membre_id == applicant.membre.id))).scalars())
    assert statuses == ["EN_ATTENTE"]
    adhesion = (await committed_db.execute(select(Adhesion).where(Adhesion.membre_id == applicant.membre.id)
                                           .execution_options(populate_existing=True))).scalar_one()
    assert adhesion.statut == "APPROUVEE" and adhesion.montant_paye == Decimal("0")
