from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from tests.factories.evenements import create_event, event_body
from unionflow.models import Evenement, InscriptionEvenement, NotificationEvenement


async def _setup(factory, client, **values):
    org = await factory.organisation()
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    evt = await create_event(client, organiser.headers, org.id, **values)
    return org, organiser, evt


async def test_capacity_waiting_list_and_promotion(client, factory, db):
    org, organiser, evt = await _setup(factory, client, capaciteMax=2, listeAttenteActive=True)
    assert evt["listeAttenteActive"] is True
    members = [await factory.actor(["USER"], organisation=org) for _ in range(4)]
    url = f"/api/evenements/{evt['id']}/inscriptions"
    results = [(await client.post(url, headers=m.headers)).json() for m in members]
    assert [r["statut"] for r in results] == ["CONFIRMEE", "CONFIRMEE", "EN_ATTENTE", "EN_ATTENTE"]
    assert [r["positionListeAttente"] for r in results] == [None, None, 1, 2]
    detail = (await client.get(f"/api/evenements/{evt['id']}", headers=organiser.headers)).json()
    assert detail["nombreInscrits"] == 2 and detail["placesRestantes"] == 0 and detail["nombreEnAttente"] == 2

    # Registering twice is a conflict.
    assert (await client.post(url, headers=members[0].headers)).status_code == 409

    # A confirmed member leaves: the first waiting member is confirmed and told.
    assert (await client.delete(url, headers=members[1].headers)).status_code == 204
    mine = (await client.get("/api/evenements/mes-inscriptions", headers=members[2].headers)).json()
    assert [i["statut"] for i in mine] == ["CONFIRMEE"]
    still_waiting = (await client.get("/api/evenements/mes-inscriptions", headers=members[3].headers)).json()
    assert still_waiting[0]["statut"] == "EN_ATTENTE" and still_waiting[0]["positionListeAttente"] == 1
    notice = (await db.execute(select(NotificationEvenement).where(
        NotificationEvenement.membre_id == members[2].membre.id))).scalar_one()
    assert notice.type_notification == "INSCRIPTION_CONFIRMEE"

    # The cancelled registration stays as history and the member may register again (queued).
    history = (await client.get("/api/evenements/mes-inscriptions", headers=members[1].headers)).json()
    assert [i["statut"] for i in history] == ["ANNULEE"]
    back = await client.post(url, headers=members[1].headers)
    assert back.status_code == 201 and back.json()["statut"] == "EN_ATTENTE"

    # Leaving the waiting list promotes nobody.
    assert (await client.delete(url, headers=members[3].headers)).status_code == 204
    confirmed = (await db.execute(select(func.count()).where(
        InscriptionEvenement.evenement_id == uuid.UUID(evt["id"]),
        InscriptionEvenement.statut == "CONFIRMEE"))).scalar_one()
    assert confirmed == 2
    assert (await client.delete(url, headers=members[3].headers)).status_code == 404

    participants = (await client.get(f"/api/evenements/{evt['id']}/participants", headers=organiser.headers)).json()
    assert {p["membreId"] for p in participants["content"]} == {str(members[0].membre.id), str(members[2].membre.id)}
    assert participants["totalElements"] == 2


async def test_capacity_increase_promotes_waiting_list(client, factory):
    org, organiser, evt = await _setup(factory, client, capaciteMax=1, listeAttenteActive=True)
    a, b, c = [await factory.actor(["USER"], organisation=org) for _ in range(3)]
    url = f"/api/evenements/{evt['id']}/inscriptions"
    await client.post(url, headers=a.headers)
    assert (await client.post(url, headers=b.headers)).json()["statut"] == "EN_ATTENTE"
    # Closing the waiting list refuses newcomers but keeps the members already queued.
    shrink = await client.put(f"/api/evenements/{evt['id']}", headers=organiser.headers,
                              json=event_body(org.id, capaciteMax=1, titre="AG 2027", listeAttenteActive=False))
    assert shrink.status_code == 200 and shrink.json()["listeAttenteActive"] is False
    assert (await client.post(url, headers=c.headers)).status_code == 409
    grown = await client.put(f"/api/evenements/{evt['id']}", headers=organiser.headers,
                             json=event_body(org.id, capaciteMax=2))
    assert grown.json()["nombreInscrits"] == 2 and grown.json()["nombreEnAttente"] == 0


async def test_full_event_without_waiting_list_refuses_registration(client, factory, db):
    org, _organiser, evt = await _setup(factory, client, capaciteMax=1)
    assert evt["listeAttenteActive"] is False
    first, second = [await factory.actor(["USER"], organisation=org) for _ in range(2)]
    url = f"/api/evenements/{evt['id']}/inscriptions"
    assert (await client.post(url, headers=first.headers)).json()["statut"] == "CONFIRMEE"
    refused = await client.post(url, headers=second.headers)
    assert refused.status_code == 409 and refused.headers["content-type"] == "application/problem+json"
    assert "complet" in refused.json()["detail"] and "liste d'attente" in refused.json()["detail"]
    rows = (await db.execute(select(func.count()).where(
        InscriptionEvenement.evenement_id == uuid.UUID(evt["id"])))).scalar_one()
    assert rows == 1
    # A place freed by a leaver can be taken again.
    assert (await client.delete(url, headers=first.headers)).status_code == 204
    assert (await client.post(url, headers=second.headers)).json()["statut"] == "CONFIRMEE"


async def test_capacity_cannot_drop_below_confirmed(client, factory):
    org, organiser, evt = await _setup(factory, client, capaciteMax=3)
    for _ in range(2):
        m = await factory.actor(["USER"], organisation=org)
        await client.post(f"/api/evenements/{evt['id']}/inscriptions", headers=m.headers)
    response = await client.put(f"/api/evenements/{evt['id']}", headers=organiser.headers,
                                json=event_body(org.id, capaciteMax=1))
    assert response.status_code == 400


async def test_registration_refused_when_cancelled_finished_or_closed(client, factory, db):
    org, _organiser, evt = await _setup(factory, client)
    member = await factory.actor(["USER"], organisation=org)
    url = f"/api/evenements/{evt['id']}/inscriptions"
    evt_id = uuid.UUID(evt["id"])
    now = datetime.now(UTC)

    await db.execute(update(Evenement).where(Evenement.id == evt_id)
                     .values(date_limite_inscription=now - timedelta(hours=1)))
    closed = await client.post(url, headers=member.headers)
    assert closed.status_code == 400 and "closes" in closed.json()["detail"]

    await db.execute(update(Evenement).where(Evenement.id == evt_id)
                     .values(date_limite_inscription=None, date_debut=now - timedelta(days=2),
                             date_fin=now - timedelta(days=1)))
    finished = await client.post(url, headers=member.headers)
    assert finished.status_code == 400 and "terminé" in finished.json()["detail"]

    org2, organiser2, evt2 = await _setup(factory, client)
    assert (await client.delete(f"/api/evenements/{evt2['id']}", headers=organiser2.headers)).status_code == 204
    member2 = await factory.actor(["USER"], organisation=org2)
    cancelled = await client.post(f"/api/evenements/{evt2['id']}/inscriptions", headers=member2.headers)
    assert cancelled.status_code == 400 and "annulé" in cancelled.json()["detail"]


async def test_registration_needs_member_record_and_visibility(client, factory):
    _org, organiser, evt = await _setup(factory, client, visibilite="MEMBRES")
    no_record = await factory.actor(["USER"], with_membre=False)
    # A members-only event is invisible to an account without member record: 404 comes before the 403 rule.
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions",
                              headers=no_record.headers)).status_code == 404
    _org2, _organiser2, public = await _setup(factory, client, visibilite="PUBLIC")
    assert (await client.post(f"/api/evenements/{public['id']}/inscriptions",
                              headers=no_record.headers)).status_code == 403
    outsider = await factory.actor(["USER"], organisation=await factory.organisation())
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions",
                              headers=outsider.headers)).status_code == 404
    assert (await client.post(f"/api/evenements/{uuid.uuid4()}/inscriptions",
                              headers=outsider.headers)).status_code == 404
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions")).status_code == 401
    # Participants are RS-EVT-READ2: a USER-only account is refused.
    assert (await client.get(f"/api/evenements/{evt['id']}/participants",
                             headers=no_record.headers)).status_code == 403
    assert (await client.get(f"/api/evenements/{evt['id']}/participants", params={"size": 0},
                             headers=organiser.headers)).status_code == 400


@pytest.mark.postgresql_only
async def test_fifty_concurrent_registrations_without_waiting_list_seat_exactly_ten(client, committed_factory,
                                                                                     committed_db):
    org = await committed_factory.organisation()
    organiser = await committed_factory.actor(["USER"], organisation=org,
                                              org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    evt = await create_event(client, organiser.headers, org.id, capaciteMax=10)
    members = [await committed_factory.actor(["USER"], organisation=org) for _ in range(50)]
    url = f"/api/evenements/{evt['id']}/inscriptions"

    responses = await asyncio.gather(*(client.post(url, headers=m.headers) for m in members))
    codes = [r.status_code for r in responses]
    assert codes.count(201) == 10 and codes.count(409) == 40, [r.text for r in responses if r.status_code >= 500]
    assert {r.json()["statut"] for r in responses if r.status_code == 201} == {"CONFIRMEE"}
    rows = (await committed_db.execute(select(InscriptionEvenement.statut, func.count())
                                       .where(InscriptionEvenement.evenement_id == uuid.UUID(evt["id"]))
                                       .group_by(InscriptionEvenement.statut))).all()
    assert dict(rows) == {"CONFIRMEE": 10}


@pytest.mark.postgresql_only
async def test_fifty_concurrent_registrations_fill_ten_places_and_queue_the_rest(client, committed_factory,
                                                                                   committed_db):
    org = await committed_factory.organisation()
    organiser = await committed_factory.actor(["USER"], organisation=org,
                                              org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    evt = await create_event(client, organiser.headers, org.id, capaciteMax=10, listeAttenteActive=True)
    members = [await committed_factory.actor(["USER"], organisation=org) for _ in range(50)]
    url = f"/api/evenements/{evt['id']}/inscriptions"

    responses = await asyncio.gather(*(client.post(url, headers=m.headers) for m in members))
    assert all(r.status_code == 201 for r in responses), [r.text for r in responses if r.status_code != 201]
    statuses = [r.json()["statut"] for r in responses]
    assert statuses.count("CONFIRMEE") == 10 and statuses.count("EN_ATTENTE") == 40

    evt_id = uuid.UUID(evt["id"])
    rows = (await committed_db.execute(select(InscriptionEvenement.statut, func.count())
                                       .where(InscriptionEvenement.evenement_id == evt_id)
                                       .group_by(InscriptionEvenement.statut))).all()
    assert dict(rows) == {"CONFIRMEE": 10, "EN_ATTENTE": 40}

    waiting = (await committed_db.execute(
        select(InscriptionEvenement.membre_id).where(InscriptionEvenement.evenement_id == evt_id,
                                                     InscriptionEvenement.statut == "EN_ATTENTE")
        .order_by(InscriptionEvenement.date_inscription, InscriptionEvenement.id).limit(1))).scalar_one()
    leaver = next(m for m, s in zip(members, statuses, strict=True) if s == "CONFIRMEE")
    assert (await client.delete(url, headers=leaver.headers)).status_code == 204
    promoted = next(m for m in members if m.membre.id == waiting)
    mine = (await client.get("/api/evenements/mes-inscriptions", headers=promoted.headers)).json()
    assert [i["statut"] for i in mine] == ["CONFIRMEE"]
    detail = (await client.get(f"/api/evenements/{evt['id']}", headers=organiser.headers)).json()
    assert detail["nombreInscrits"] == 10 and detail["nombreEnAttente"] == 39
