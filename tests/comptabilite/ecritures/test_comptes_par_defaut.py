"""Collection is never blocked by configuration: the accounts automatic entries use cannot be made inactive,
and one found inactive (older data) is reactivated, with an audit entry, instead of refusing the money."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, CompteComptable


async def _org(factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, member


async def test_default_accounts_cannot_be_created_inactive(client, factory):
    org, treasurer, _ = await _org(factory)
    for numero in ("571", "5521", "5215", "7061", "7011", "6581"):
        refused = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
            "organisationId": str(org.id), "numeroCompte": numero, "libelle": "Compte fermé", "actif": False})
        assert refused.status_code == 400 and "écritures automatiques" in refused.json()["detail"], refused.text
    other = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "6011", "libelle": "Achats suspendus", "actif": False})
    assert other.status_code == 200 and other.json()["actif"] is False


async def test_cash_dues_payment_succeeds_when_the_cash_account_was_inactive(client, factory, db):
    org, treasurer, member = await _org(factory)
    caisse = CompteComptable(organisation_id=org.id, numero_compte="571", libelle="Caisse", classe=5,
                             type_compte="TRESORERIE", actif=False)
    db.add(caisse)
    await db.flush()
    dues = await cotisation(db, member.membre, org, 5000)
    paid = await client.put(f"/api/cotisations/{dues.id}/payer", headers=treasurer.headers,
                            json={"montant": "5000", "methodePaiement": "ESPECES"})
    assert paid.status_code == 200, paid.text
    await db.refresh(caisse)
    assert caisse.actif is True
    actions = (await db.execute(select(AuditLog.type_action, AuditLog.severite)
                                .where(AuditLog.entite_id == str(caisse.id)))).all()
    assert ("REACTIVER", "WARNING") in [tuple(a) for a in actions]
