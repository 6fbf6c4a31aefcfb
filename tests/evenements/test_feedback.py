from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from tests.factories.evenements import create_event
from unionflow.models import Evenement


async def _ended_event_with(client, factory, db, *, registered: int = 1, end_in_past: bool = True):
    org = await factory.organisation()
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    evt = await create_event(client, organiser.headers, org.id, capaciteMax=registered or None,
                             listeAttenteActive=True)
    members = []
    for _ in range(registered):
        m = await factory.actor(["USER"], organisation=org)
        assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions", headers=m.headers)).status_code == 201
        members.append(m)
    if end_in_past:
        past = datetime.now(UTC) - timedelta(days=1)
        await db.execute(update(Evenement).where(Evenement.id == uuid.UUID(evt["id"]))
                         .values(date_debut=past - timedelta(hours=3), date_fin=past))
    return org, organiser, evt, members


async def test_feedback_flow_moderation_and_statistics(client, factory, db):
    _org, organiser, evt, members = await _ended_event_with(client, factory, db, registered=3)
    url = f"/api/evenements/{evt['id']}/feedback"
    note_only = await client.post(url, headers=members[0].headers, json={"note": 5})
    assert note_only.status_code == 201 and note_only.json()["statutModeration"] == "PUBLIE"
    with_text = await client.post(url, headers=members[1].headers,
                                  json={"note": 3, "commentaire": "Salle trop petite"})
    assert with_text.json()["statutModeration"] == "EN_ATTENTE"
    rude = await client.post(url, headers=members[2].headers, json={"note": 1, "commentaire": "insulte"})

    listing = (await client.get(f"/api/evenements/{evt['id']}/feedbacks", headers=members[0].headers)).json()
    assert listing["nombreFeedbacks"] == 1 and listing["noteMoyenne"] == "5.00"

    # Members cannot moderate; the organiser staff can.
    mod_url = f"/api/evenements/{evt['id']}/feedbacks/{with_text.json()['id']}/moderation"
    assert (await client.put(mod_url, headers=members[0].headers, json={"statut": "PUBLIE"})).status_code == 403
    queue = await client.get(f"/api/evenements/{evt['id']}/feedbacks/moderation", headers=organiser.headers)
    assert {f["id"] for f in queue.json()} == {with_text.json()["id"], rude.json()["id"]}
    published = await client.put(mod_url, headers=organiser.headers, json={"statut": "PUBLIE"})
    assert published.status_code == 200 and published.json()["statutModeration"] == "PUBLIE"
    reject_url = f"/api/evenements/{evt['id']}/feedbacks/{rude.json()['id']}/moderation"
    assert (await client.put(reject_url, headers=organiser.headers, json={"statut": "REJETE"})).status_code == 400
    # A union-wide moderator (realm role) may moderate too.
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    rejected = await client.put(reject_url, headers=moderator.headers,
                                json={"statut": "REJETE", "motif": "Propos injurieux"})
    assert rejected.status_code == 200 and rejected.json()["motifModeration"] == "Propos injurieux"
    missing = f"/api/evenements/{evt['id']}/feedbacks/{uuid.uuid4()}/moderation"
    assert (await client.put(missing, headers=organiser.headers, json={"statut": "PUBLIE"})).status_code == 404

    stats = (await client.get(f"/api/evenements/{evt['id']}/feedbacks", headers=members[0].headers)).json()
    assert stats["nombreFeedbacks"] == 2 and stats["noteMoyenne"] == "4.00"
    assert stats["repartition"] == {"1": 0, "2": 0, "3": 1, "4": 0, "5": 1}
    assert {f["commentaire"] for f in stats["feedbacks"]} == {None, "Salle trop petite"}
    global_stats = (await client.get("/api/evenements/statistiques", headers=organiser.headers)).json()
    assert global_stats["nombreFeedbacks"] == 2 and global_stats["noteMoyenneFeedback"] == "4.00"


async def test_feedback_requires_participation(client, factory, db):
    org, _, evt, _ = await _ended_event_with(client, factory, db, registered=1)
    stranger = await factory.actor(["USER"], organisation=org)
    response = await client.post(f"/api/evenements/{evt['id']}/feedback", headers=stranger.headers, json={"note": 4})
    assert response.status_code == 400 and "participants" in response.json()["detail"]


async def test_waiting_list_member_is_not_a_participant(client, factory, db):
    org, _, evt, _ = await _ended_event_with(client, factory, db, registered=1, end_in_past=False)
    waiting = await factory.actor(["USER"], organisation=org)
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions",
                              headers=waiting.headers)).json()["statut"] == "EN_ATTENTE"
    past = datetime.now(UTC) - timedelta(days=1)
    await db.execute(update(Evenement).where(Evenement.id == uuid.UUID(evt["id"]))
                     .values(date_debut=past - timedelta(hours=3), date_fin=past))
    response = await client.post(f"/api/evenements/{evt['id']}/feedback", headers=waiting.headers, json={"note": 4})
    assert response.status_code == 400


async def test_feedback_only_after_the_event_ended(client, factory, db):
    _, _, evt, members = await _ended_event_with(client, factory, db, registered=1, end_in_past=False)
    response = await client.post(f"/api/evenements/{evt['id']}/feedback", headers=members[0].headers,
                                 json={"note": 4})
    assert response.status_code == 400 and "fin" in response.json()["detail"]


async def test_one_feedback_per_member_and_event(client, factory, db):
    _, _, evt, members = await _ended_event_with(client, factory, db, registered=1)
    url = f"/api/evenements/{evt['id']}/feedback"
    assert (await client.post(url, headers=members[0].headers, json={"note": 4})).status_code == 201
    assert (await client.post(url, headers=members[0].headers, json={"note": 2})).status_code == 409


async def test_note_bounds(client, factory, db):
    _, _, evt, members = await _ended_event_with(client, factory, db, registered=1)
    url = f"/api/evenements/{evt['id']}/feedback"
    for note in (0, 6, -1):
        response = await client.post(url, headers=members[0].headers, json={"note": note})
        assert response.status_code == 400 and response.json()["errors"][0]["field"] == "note"
    assert (await client.post(url, headers=members[0].headers, json={"note": 1})).status_code == 201
    assert (await client.post(f"/api/evenements/{uuid.uuid4()}/feedback", headers=members[0].headers,
                              json={"note": 3})).status_code == 404
    assert (await client.get(f"/api/evenements/{uuid.uuid4()}/feedbacks",
                             headers=members[0].headers)).status_code == 404
