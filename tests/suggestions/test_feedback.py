from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.models import AuditLog


async def send(client, actor, **values):
    body = {"type": "BUG", "message": "Le reçu Wave ne s'affiche pas sur Android.", **values}
    response = await client.post("/api/feedback", headers=actor.headers, json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_any_user_sends_feedback_and_sees_only_their_own(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    other = await factory.actor(["USER"], with_membre=False)
    sent = await send(client, member, note=2, contexte="Paiement Wave", versionApplication="2.4.1")
    assert sent["traite"] is False and sent["note"] == 2 and sent["membreId"] == str(member.membre.id)
    assert sent["organisationId"] == str(org.id)
    assert (await client.get(f"/api/feedback/{sent['id']}", headers=member.headers)).status_code == 200
    assert (await client.get(f"/api/feedback/{sent['id']}", headers=other.headers)).status_code == 404
    mine = await client.get("/api/feedback/mes-feedbacks", headers=member.headers)
    assert [f["id"] for f in mine.json()["content"]] == [sent["id"]]
    assert (await client.get("/api/feedback/mes-feedbacks", headers=other.headers)).json()["totalElements"] == 0
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == sent["id"]))).scalar_one()
    assert entry.module == "FEEDBACK" and entry.type_action == "CREER"


async def test_input_rules(client, factory):
    user = await factory.actor(["USER"], with_membre=False)
    for body in ({"type": "BUG", "message": "ok ok", "note": 6}, {"type": "BUG", "message": "ok ok", "note": 0},
                 {"type": "PLAINTE", "message": "ok ok"}, {"type": "AUTRE", "message": "ok ok", "traite": True},
                 {"type": "AUTRE"}):
        assert (await client.post("/api/feedback", headers=user.headers, json=body)).status_code == 400
    no_note = await send(client, user, type="AMELIORATION")
    assert no_note["note"] is None
    assert (await client.post("/api/feedback", json={"type": "BUG", "message": "anonyme"})).status_code == 401


async def test_moderators_list_filter_process_and_count(client, factory):
    user = await factory.actor(["USER"], with_membre=False)
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    treasurer = await factory.actor(["USER"], organisation=await factory.organisation(),
                                    org_roles=["TRESORIER"])
    bug = await send(client, user, note=1)
    idea = await send(client, user, type="AMELIORATION", message="Ajouter le mode sombre", note=4)
    assert (await client.get("/api/feedback", headers=user.headers)).status_code == 403
    assert (await client.get("/api/feedback", headers=treasurer.headers)).status_code == 403
    assert (await client.post(f"/api/feedback/{bug['id']}/traiter", headers=user.headers)).status_code == 403

    listing = await client.get("/api/feedback", headers=moderator.headers, params={"type": "AMELIORATION"})
    assert idea["id"] in [f["id"] for f in listing.json()["content"]]
    assert bug["id"] not in [f["id"] for f in listing.json()["content"]]
    assert (await client.get(f"/api/feedback/{bug['id']}", headers=moderator.headers)).status_code == 200

    before = (await client.get("/api/feedback/statistiques", headers=admin.headers)).json()
    processed = await client.post(f"/api/feedback/{bug['id']}/traiter", headers=moderator.headers,
                                  json={"commentaire": "Corrigé en 2.4.2"})
    body = processed.json()
    assert body["traite"] is True and body["traitePar"] == moderator.user.email and body["dateTraitement"]
    again = await client.post(f"/api/feedback/{bug['id']}/traiter", headers=admin.headers)
    assert again.status_code == 409
    untreated = await client.get("/api/feedback", headers=admin.headers, params={"traite": "false"})
    assert bug["id"] not in [f["id"] for f in untreated.json()["content"]]
    after = (await client.get("/api/feedback/statistiques", headers=admin.headers)).json()
    assert after["nonTraites"] == before["nonTraites"] - 1 and after["total"] == before["total"]
    assert after.pop("calculeLe")
    assert after == {"total": 2, "nonTraites": 1, "noteMoyenne": 2.5, "nombreNotes": 2,
                     "parType": {"BUG": 1, "AMELIORATION": 1}}
    assert (await client.post(f"/api/feedback/{uuid.uuid4()}/traiter", headers=admin.headers)).status_code == 404
