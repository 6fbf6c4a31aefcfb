from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select

from unionflow.models import AuditLog, SuggestionVote


async def propose(client, actor, organisation_id, **values: Any) -> dict[str, Any]:
    body = {"organisationId": str(organisation_id), "titre": "Paiement des cotisations par Wave",
            "description": "Permettre de payer la cotisation mensuelle depuis l'application.",
            "categorie": "COTISATIONS", **values}
    response = await client.post("/api/suggestions", headers=actor.headers, json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_member_proposes_and_peers_see_it_outsiders_do_not(client, factory, db):
    org = await factory.organisation()
    other = await factory.organisation()
    author = await factory.actor(["USER"], organisation=org)
    peer = await factory.actor(["USER"], organisation=org)
    outsider = await factory.actor(["USER"], organisation=other)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    idea = await propose(client, author, org.id)
    assert idea["statut"] == "SOUMISE" and idea["nombreVotes"] == 0 and idea["votesOuverts"] is True
    assert idea["auteurNom"] == f"{author.membre.prenom} {author.membre.nom}"
    for actor in (author, peer, admin):
        assert (await client.get(f"/api/suggestions/{idea['id']}", headers=actor.headers)).status_code == 200
    assert (await client.get(f"/api/suggestions/{idea['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get("/api/suggestions", headers=outsider.headers)).json()["totalElements"] == 0
    assert (await client.get(f"/api/suggestions/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == idea["id"]))).scalar_one()
    assert entry.type_action == "CREER" and entry.module == "SUGGESTIONS"

    not_member = await client.post("/api/suggestions", headers=author.headers, json={
        "organisationId": str(other.id), "titre": "Idée", "description": "Ailleurs"})
    assert not_member.status_code == 400
    forged = await client.post("/api/suggestions", headers=author.headers, json={
        "organisationId": str(org.id), "titre": "Idée", "description": "Texte", "nombreVotes": 99})
    assert forged.status_code == 400


async def test_vote_toggles_one_per_member_and_sorts_by_votes(client, factory, db):
    org = await factory.organisation()
    author = await factory.actor(["USER"], organisation=org)
    voters = [await factory.actor(["USER"], organisation=org) for _ in range(2)]
    outsider = await factory.actor(["USER"], organisation=await factory.organisation())
    first = await propose(client, author, org.id, titre="Première idée")
    second = await propose(client, author, org.id, titre="Deuxième idée")

    for voter in voters:
        vote = await client.post(f"/api/suggestions/{second['id']}/vote", headers=voter.headers)
        assert vote.status_code == 200 and vote.json()["aVote"] is True
    assert vote.json()["nombreVotes"] == 2
    again = await client.post(f"/api/suggestions/{second['id']}/vote", headers=voters[0].headers)
    assert again.json() == {"suggestionId": second["id"], "aVote": False, "nombreVotes": 1}
    count = (await db.execute(select(func.count()).select_from(SuggestionVote).where(
        SuggestionVote.suggestion_id == uuid.UUID(second["id"])))).scalar_one()
    assert count == 1
    assert (await client.post(f"/api/suggestions/{first['id']}/vote",
                              headers=outsider.headers)).status_code == 404

    by_votes = (await client.get("/api/suggestions", headers=voters[1].headers)).json()["content"]
    assert [s["id"] for s in by_votes] == [second["id"], first["id"]]
    assert [s["aVote"] for s in by_votes] == [True, False]
    by_date = (await client.get("/api/suggestions", headers=author.headers, params={"tri": "DATE"})).json()
    assert [s["id"] for s in by_date["content"]] == [second["id"], first["id"]]
    assert (await client.get("/api/suggestions", headers=author.headers, params={"tri": "X"})).status_code == 400


async def test_staff_response_workflow_and_votes_close(client, factory):
    org = await factory.organisation()
    author = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    foreign_staff = await factory.actor(["USER"], organisation=await factory.organisation(),
                                        org_roles=["ADMIN_ORGANISATION"])
    idea = await propose(client, author, org.id)
    url = f"/api/suggestions/{idea['id']}/statut"
    assert (await client.post(url, headers=author.headers, json={"statut": "EN_ETUDE"})).status_code == 403
    assert (await client.post(url, headers=foreign_staff.headers, json={"statut": "EN_ETUDE"})).status_code == 404
    studied = await client.post(url, headers=staff.headers, json={"statut": "EN_ETUDE"})
    assert studied.status_code == 200 and studied.json()["statut"] == "EN_ETUDE"
    assert (await client.put(f"/api/suggestions/{idea['id']}", headers=author.headers,
                             json={"titre": "Nouveau titre"})).status_code == 400
    assert (await client.post(url, headers=staff.headers, json={"statut": "REALISEE"})).status_code == 400
    assert (await client.post(url, headers=staff.headers, json={"statut": "RETENUE"})).status_code == 400
    kept = await client.post(url, headers=staff.headers,
                             json={"statut": "RETENUE", "reponse": "Prévu au budget 2027."})
    body = kept.json()
    assert body["statut"] == "RETENUE" and body["reponse"] == "Prévu au budget 2027."
    # Members see the staff member's name, not their login e-mail.
    assert body["reponduPar"] == f"{staff.membre.prenom} {staff.membre.nom}" and body["votesOuverts"] is False
    closed = await client.post(f"/api/suggestions/{idea['id']}/vote", headers=author.headers)
    assert closed.status_code == 400
    done = await client.post(url, headers=staff.headers, json={"statut": "REALISEE"})
    assert done.json()["statut"] == "REALISEE" and done.json()["reponse"] == "Prévu au budget 2027."
    final = await client.post(url, headers=staff.headers, json={"statut": "REJETEE", "reponse": "x"})
    assert final.status_code == 400
    listing = await client.get("/api/suggestions", headers=author.headers, params={"statut": "REALISEE"})
    assert [s["id"] for s in listing.json()["content"]] == [idea["id"]]


async def test_only_author_edits_while_submitted(client, factory):
    org = await factory.organisation()
    author = await factory.actor(["USER"], organisation=org)
    peer = await factory.actor(["USER"], organisation=org)
    idea = await propose(client, author, org.id)
    url = f"/api/suggestions/{idea['id']}"
    assert (await client.put(url, headers=peer.headers, json={"titre": "Pris"})).status_code == 403
    edited = await client.put(url, headers=author.headers, json={"titre": "Cotisations via Wave", "categorie":
                                                                 "APPLICATION"})
    assert edited.json()["titre"] == "Cotisations via Wave" and edited.json()["categorie"] == "APPLICATION"
    assert (await client.put(url, headers=author.headers, json={"description": None})).status_code == 400
    mine = await client.get("/api/suggestions", headers=peer.headers, params={"mesSuggestions": "true"})
    assert mine.json()["totalElements"] == 0
