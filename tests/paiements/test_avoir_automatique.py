"""Issue 20: an organisation's own settings (the first: ``cotisations.avoir.imputation_automatique``) and the credit
applied by the system to dues fallen due where the setting is on."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.configuration.organisation_service import valeur_organisation
from unionflow.models import AuditLog
from unionflow.paiements.avoirs.service import IMPUTATION_AUTOMATIQUE, imputer_automatiquement

CLE = IMPUTATION_AUTOMATIQUE


async def _setup(factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, member


async def test_organisation_sets_its_own_value_audited(client, factory, db):
    org, treasurer, member = await _setup(factory)
    other = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "TRESORIER"])
    path = f"/api/configuration/organisations/{org.id}"
    listed = await client.get(path, headers=treasurer.headers)
    assert listed.status_code == 200, listed.text
    # Other settings an organisation may set (the dues scale…) are listed beside it, none its own yet.
    assert [(c["cle"], c["valeur"], c["propre"]) for c in listed.json() if c["cle"] == CLE] == [(CLE, False, False)]
    assert not any(c["propre"] for c in listed.json())
    assert (await client.put(f"{path}/{CLE}", headers=member.headers, json={"valeur": True})).status_code == 403
    assert (await client.put(f"{path}/{CLE}", headers=stranger.headers, json={"valeur": True})).status_code == 404
    assert (await client.put(f"{path}/devise.defaut", headers=treasurer.headers,
                             json={"valeur": "EUR"})).status_code == 404
    assert (await client.put(f"{path}/{CLE}", headers=treasurer.headers, json={"valeur": 3})).status_code == 400
    done = await client.put(f"{path}/{CLE}", headers=treasurer.headers, json={"valeur": True})
    assert done.status_code == 200, done.text
    assert done.json()["valeur"] is True and done.json()["propre"] is True
    assert await valeur_organisation(db, org.id, CLE) is True
    assert await valeur_organisation(db, other.id, CLE) is False  # the installation's value elsewhere
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_type == "ConfigurationOrganisation",
                                                     AuditLog.organisation_id == org.id))).scalar_one()
    assert entry.type_action == "MODIFIER" and entry.details["apres"]["valeur"] is True


async def test_credit_pays_dues_fallen_due_only_where_the_organisation_says_so(client, factory, db):
    org, treasurer, member = await _setup(factory)
    today = date.today()
    overdue = await cotisation(db, member.membre, org, 2500, echeance=today - timedelta(days=3))
    future = await cotisation(db, member.membre, org, 2500, echeance=today + timedelta(days=20))
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "4000", "methode": "ESPECES",
        "cibles": [], "avance": True})
    assert paid.status_code == 201, paid.text
    assert await imputer_automatiquement(db, org.id, today) == 0  # setting off: the treasury decides
    await db.refresh(overdue)
    assert overdue.montant_paye == 0
    assert (await client.put(f"/api/configuration/organisations/{org.id}/{CLE}", headers=treasurer.headers,
                             json={"valeur": True})).status_code == 200
    assert await imputer_automatiquement(db, org.id, today) == 1
    await db.refresh(overdue)
    await db.refresh(future)
    assert overdue.statut == "PAYEE" and future.montant_paye == 0  # not due yet: the credit waits
    avoir = await client.get(f"/api/avoirs?membreId={member.membre.id}&organisationId={org.id}",
                             headers=treasurer.headers)
    assert avoir.json()["solde"] == "1500.00"
    assert await imputer_automatiquement(db, org.id, today + timedelta(days=21)) == 1
    await db.refresh(future)
    assert future.montant_paye == Decimal("1500") and future.statut == "PARTIELLEMENT_PAYEE"
