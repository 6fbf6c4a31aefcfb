from __future__ import annotations

import asyncio

import pytest

from tests.factories.finance import bureau, demande_aide

URL = "/api/finance/approbations"


@pytest.mark.postgresql_only
async def test_concurrent_decisions_on_one_request_record_one(client, committed_factory):
    b = await bureau(committed_factory)
    second_president = await committed_factory.actor(["USER"], organisation=b.org,
                                                     org_roles=["MEMBRE", "PRESIDENT"])
    body = (await client.post(URL, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "typeObjet": "AUTRE", "montant": "10000", "motif": "Achat"})).json()
    responses = await asyncio.gather(
        client.post(f"{URL}/{body['id']}/approuver", headers=b.president.headers),
        client.post(f"{URL}/{body['id']}/rejeter", headers=b.admin_org.headers, json={"commentaire": "Non"}),
        client.post(f"{URL}/{body['id']}/approuver", headers=second_president.headers))
    assert sorted(r.status_code for r in responses) == [200, 400, 400]
    final = (await client.get(f"{URL}/{body['id']}", headers=b.tresorier.headers)).json()
    assert len(final["decisions"]) == 1 and final["statut"] in {"APPROUVEE", "REJETEE"}


@pytest.mark.postgresql_only
async def test_concurrent_links_to_one_aid_request_reserve_one_offer(client, committed_db, committed_factory):
    b = await bureau(committed_factory)
    demande = await demande_aide(committed_db, b.org, await committed_factory.membre(b.org), statut="SOUMISE")
    await committed_db.commit()
    offers = []
    for actor in (b.membre, b.tresorier, b.president):
        r = await client.post("/api/propositions-aide", headers=actor.headers, json={
            "organisationId": str(b.org.id), "type": "DECES", "nature": "SERVICE", "titre": "Aide",
            "description": "Présence aux obsèques"})
        offers.append(r.json()["id"])
    responses = await asyncio.gather(*[
        client.post(f"/api/propositions-aide/{o}/lier", headers=b.admin_org.headers,
                    json={"demandeAideId": str(demande.id)}) for o in offers])
    assert sorted(r.status_code for r in responses) == [200, 409, 409]
