"""Two manual entries on one cash box approved at the same moment by two people: the treasury's row lock checks
them one after the other, so when both would overdraw the box exactly one passes (issue 28, "Done when")."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.factories.comptabilite import compte, ecriture, journal
from tests.factories.cotisations import cotisation
from tests.factories.tresoreries import declarer

TODAY = datetime.now(UTC).date().isoformat()


@pytest.mark.postgresql_only
async def test_two_approvals_on_one_cash_box_never_overdraw_it(client, committed_db, committed_factory):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    admin = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await committed_factory.membre(org)
    dues = await cotisation(committed_db, member, org, "20000")
    await committed_db.commit()
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.id), "organisationId": str(org.id), "montant": "20000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    comptes = {c["numeroCompte"]: c["id"] for c in (await client.get(
        "/api/comptabilite/comptes", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
    charge = await compte(client, treasurer.headers, org.id, "6588", "Autres charges")
    cai = await journal(client, treasurer.headers, org.id, "CAIS", "CAISSE")
    body = ecriture(cai["id"], [(charge["id"], "15000", "0"), (comptes["571"], "0", "15000")], TODAY)
    ids = []
    for _ in range(2):  # each passes alone: 15 000 out of 20 000
        asked = await client.post("/api/comptabilite/ecritures", headers=treasurer.headers, json=body)
        assert asked.status_code == 202, asked.text
        ids.append(asked.json()["id"])
    responses = await asyncio.gather(*[
        client.post(f"/api/comptabilite/demandes-ecritures/{demande}/approuver", headers=who.headers, json={})
        for demande, who in zip(ids, (president, admin), strict=True)])
    assert sorted(r.status_code for r in responses) == [200, 400], [r.text for r in responses]
    refused = next(r for r in responses if r.status_code == 400)
    assert "Solde insuffisant" in refused.json()["detail"]
    after = (await client.get(f"/api/tresoreries/{caisse['id']}", headers=treasurer.headers)).json()
    assert Decimal(after["solde"]) == Decimal("5000")
