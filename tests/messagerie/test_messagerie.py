from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.messagerie import conversation, send
from unionflow.models import AuditLog


async def test_direct_conversation_is_unique_per_pair_and_private(client, factory, db):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    neighbour = await factory.actor(["USER"], organisation=org)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    created = await conversation(client, awa, org.id, moussa)
    assert created.status_code == 201, created.text
    conv = created.json()
    assert conv["type"] == "DIRECTE" and {p["membreId"] for p in conv["participants"]} == {
        str(awa.membre.id), str(moussa.membre.id)}
    # The other side opening "their" thread gets the same conversation.
    again = await conversation(client, moussa, org.id, awa)
    assert again.status_code == 200 and again.json()["id"] == conv["id"]

    url = f"/api/messagerie/conversations/{conv['id']}"
    for outsider in (neighbour, admin):
        assert (await client.get(url, headers=outsider.headers)).status_code == 404
        assert (await client.get(url + "/messages", headers=outsider.headers)).status_code == 404
        assert (await send(client, outsider, conv["id"], contenu="Je lis ?")).status_code == 404
    assert (await client.get(f"/api/messagerie/conversations/{uuid.uuid4()}",
                             headers=awa.headers)).status_code == 404
    listing = await client.get("/api/messagerie/conversations", headers=neighbour.headers)
    assert listing.json()["totalElements"] == 0

    sent = await send(client, awa, conv["id"], contenu="Bonjour Moussa, la réunion est à 18 h.")
    assert sent.status_code == 201 and sent.json()["type"] == "TEXTE"
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == conv["id"],
                                                     AuditLog.type_action == "ECRIRE"))).scalar_one()
    # The audit trail records that a message was sent, never its text.
    assert "réunion" not in str(entry.details)


async def test_participants_must_share_the_organisation(client, factory):
    org = await factory.organisation()
    other_org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    stranger = await factory.actor(["USER"], organisation=other_org)
    assert (await conversation(client, awa, org.id, stranger)).status_code == 400
    assert (await conversation(client, awa, other_org.id, stranger)).status_code == 400
    assert (await conversation(client, awa, org.id, awa)).status_code == 400
    assert (await conversation(client, awa, uuid.uuid4(), stranger)).status_code == 404
    two = await conversation(client, awa, org.id, stranger, await factory.actor(["USER"], organisation=org))
    assert two.status_code == 400  # DIRECTE takes exactly one other participant
    no_title = await conversation(client, awa, org.id, await factory.actor(["USER"], organisation=org),
                                  type="GROUPE")
    assert no_title.status_code == 400
    no_record = await factory.actor(["USER"], with_membre=False)
    assert (await client.get("/api/messagerie/conversations", headers=no_record.headers)).json()[
        "totalElements"] == 0


async def test_unread_counts_and_mark_read(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    fatou = await factory.actor(["USER"], organisation=org)
    direct = (await conversation(client, awa, org.id, moussa)).json()
    group = (await conversation(client, awa, org.id, moussa, fatou, type="GROUPE", titre="Bureau")).json()
    await send(client, awa, direct["id"], contenu="Un")
    await send(client, awa, direct["id"], contenu="Deux")
    await send(client, fatou, group["id"], contenu="Ordre du jour ?")

    counts = (await client.get("/api/messagerie/non-lus", headers=moussa.headers)).json()
    assert counts == {"total": 3, "conversations": 2}
    # One's own messages are never unread.
    assert (await client.get("/api/messagerie/non-lus", headers=awa.headers)).json() == {
        "total": 1, "conversations": 1}
    listing = (await client.get("/api/messagerie/conversations", headers=moussa.headers)).json()["content"]
    assert [(c["id"], c["nonLus"]) for c in listing] == [(group["id"], 1), (direct["id"], 2)]

    messages = (await client.get(f"/api/messagerie/conversations/{direct['id']}/messages",
                                 headers=moussa.headers)).json()
    assert [m["contenu"] for m in messages["content"]] == ["Deux", "Un"]
    read = await client.post(f"/api/messagerie/conversations/{direct['id']}/lu", headers=moussa.headers)
    assert read.json()["nonLus"] == 0
    assert (await client.get("/api/messagerie/non-lus", headers=moussa.headers)).json() == {
        "total": 1, "conversations": 1}
    await send(client, awa, direct["id"], contenu="Trois")
    assert (await client.get("/api/messagerie/non-lus", headers=moussa.headers)).json()["total"] == 2


async def test_group_add_and_leave(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    fatou = await factory.actor(["USER"], organisation=org)
    stranger = await factory.actor(["USER"], organisation=await factory.organisation())
    group = (await conversation(client, awa, org.id, moussa, type="GROUPE", titre="Trésorerie")).json()
    url = f"/api/messagerie/conversations/{group['id']}"
    assert (await client.get(url, headers=fatou.headers)).status_code == 404
    bad = await client.post(url + "/participants", headers=moussa.headers,
                            json={"membreIds": [str(stranger.membre.id)]})
    assert bad.status_code == 400
    added = await client.post(url + "/participants", headers=moussa.headers,
                              json={"membreIds": [str(fatou.membre.id)]})
    assert added.status_code == 200 and len(added.json()["participants"]) == 3
    assert (await client.post(url + "/participants", headers=moussa.headers,
                              json={"membreIds": [str(fatou.membre.id)]})).status_code == 400
    assert (await client.get(url, headers=fatou.headers)).status_code == 200

    assert (await client.delete(url + "/participants/moi", headers=fatou.headers)).status_code == 204
    assert (await client.get(url, headers=fatou.headers)).status_code == 404
    assert (await send(client, fatou, group["id"], contenu="Encore là ?")).status_code == 404

    direct = (await conversation(client, awa, org.id, moussa)).json()
    direct_url = f"/api/messagerie/conversations/{direct['id']}"
    assert (await client.delete(direct_url + "/participants/moi", headers=awa.headers)).status_code == 400
    assert (await client.post(direct_url + "/participants", headers=awa.headers,
                              json={"membreIds": [str(fatou.membre.id)]})).status_code == 400


async def test_message_input_rules(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    conv = (await conversation(client, awa, org.id, moussa)).json()
    assert (await send(client, awa, conv["id"])).status_code == 400
    assert (await send(client, awa, conv["id"], contenu="x", documentId=str(uuid.uuid4()))).status_code == 400
    assert (await send(client, awa, conv["id"], contenu="x", dureeSecondes=3)).status_code == 400
    assert (await send(client, awa, conv["id"], contenu="x", lu=True)).status_code == 400
