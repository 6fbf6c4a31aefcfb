"""Delivery worker against a real SMTP server and a real HTTP SMS gateway on loopback."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from tests.factories.cotisations import cotisation_a_venir, days, treasury
from tests.factories.evenements import create_event
from tests.factories.notifications import BASE, envoi, staff
from tests.notifications.serveurs import free_port, sms_gateway, smtp_server
from unionflow.models import AuditLog, Notification, NotificationEvenement, RappelCotisation
from unionflow.notifications.delivery import LivreurNotifications


def _settings(settings, port=None, **values):
    base = {"smtp_host": "127.0.0.1" if port else None, "smtp_port": port or 25, "smtp_starttls": False,
            "smtp_from": "Union <secretariat@union.sn>", "notification_backoff_seconds": 0,
            "notification_max_tentatives": 3, "notification_lot": 10}
    return settings.model_copy(update={**base, **values})


async def _run(app, settings, **kw):
    return await LivreurNotifications(app.state.sessionmaker, settings).run(**kw)


async def _row(db, notification_id) -> Notification:
    row = await db.get(Notification, notification_id, populate_existing=True)
    assert row is not None
    return row


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
async def test_grouped_dues_reminder_arrives_in_the_mailbox(app, client, factory, db, settings):
    org, treasurer, a, _b = await treasury(factory)
    await cotisation_a_venir(factory, a.membre, org, montant="3000", echeance=days(-4))
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(a.membre.id)])
    assert reminded.status_code == 200, reminded.text
    rappel_id = uuid.UUID(reminded.json()["rappels"][0]["id"])
    queued = (await db.execute(select(Notification).where(Notification.source_id == rappel_id))).scalar_one()
    assert queued.source_type == "RappelCotisation" and queued.type_notification == "RAPPEL_COTISATION"
    assert queued.statut == "EN_ATTENTE" and queued.canal == "EMAIL" and queued.organisation_id == org.id

    with smtp_server(user="union", password="s3cret") as (mailbox, port):
        bilan = await _run(app, _settings(settings, port, smtp_user="union", smtp_password="s3cret"))
    assert bilan.envoyees >= 1 and mailbox.logins == ["union"]
    assert mailbox.ids().count(str(queued.id)) == 1
    message = next(m for m in mailbox.messages if m["X-UnionFlow-Notification"] == str(queued.id))
    assert message["To"] == a.membre.email and message["From"] == "Union <secretariat@union.sn>"
    assert "cotisation" in message["Subject"] and "3\u00a0000\u00a0FCFA" in message.get_payload(decode=True).decode()
    row = await _row(db, queued.id)
    assert row.statut == "ENVOYEE" and row.tentatives == 1 and row.date_envoi is not None
    assert row.verrouillee_jusqua is None and row.derniere_erreur is None
    rappel = await db.get(RappelCotisation, rappel_id, populate_existing=True)
    assert rappel is not None and rappel.statut == "ENVOYE" and rappel.date_envoi is not None
    assert (await db.execute(select(AuditLog).where(AuditLog.type_action == "ENVOYER_NOTIFICATIONS"))).first()
    # Nothing is sent twice: a second run finds nothing due for this row.
    with smtp_server() as (mailbox2, port2):
        await _run(app, _settings(settings, port2))
    assert str(queued.id) not in mailbox2.ids()
    # The member sees it in the app too.
    inbox = (await client.get(f"{BASE}/mes", headers=a.headers)).json()["content"]
    assert [n["statut"] for n in inbox] == ["ENVOYEE"]


async def test_closed_smtp_port_retries_with_backoff_then_fails(app, client, factory, db, settings):
    org, treasurer, a, _b = await treasury(factory)
    await cotisation_a_venir(factory, a.membre, org, montant="1000")
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(a.membre.id)])
    rappel_id = uuid.UUID(reminded.json()["rappels"][0]["id"])
    queued = (await db.execute(select(Notification).where(Notification.source_id == rappel_id))).scalar_one()
    closed = free_port()  # nothing listens there

    before = datetime.now(UTC)
    first = await _run(app, _settings(settings, closed, notification_backoff_seconds=600))
    row = await _row(db, queued.id)
    assert first.reportees >= 1 and row.statut == "EN_ATTENTE" and row.tentatives == 1
    assert "SMTP" in (row.derniere_erreur or "") and "Refused" in (row.derniere_erreur or "")
    assert row.prochaine_tentative is not None and (row.prochaine_tentative - before).total_seconds() >= 590
    # Not due yet: a run does not touch it.
    await _run(app, _settings(settings, closed, notification_backoff_seconds=600))
    assert (await _row(db, queued.id)).tentatives == 1

    row.prochaine_tentative = None
    await db.flush()
    await _run(app, _settings(settings, closed))  # backoff 0: retried in the same run up to the limit
    row = await _row(db, queued.id)
    assert row.statut == "ECHOUEE" and row.tentatives == 3 and row.prochaine_tentative is None
    assert "Refused" in (row.derniere_erreur or "")
    rappel = await db.get(RappelCotisation, rappel_id, populate_existing=True)
    assert rappel is not None and rappel.statut == "ECHEC"
    failed = (await client.get(BASE, headers=treasurer.headers, params={"statut": "ECHOUEE"})).json()["content"]
    assert [n["id"] for n in failed] == [str(queued.id)]


async def test_no_smtp_host_is_an_explicit_error(app, client, factory, db, settings):
    org, secretaire = await staff(factory)
    member = await factory.membre(org)
    await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, membreIds=[str(member.id)]))
    await _run(app, _settings(settings, None, notification_backoff_seconds=600))
    row = (await db.execute(select(Notification).where(Notification.membre_id == member.id))).scalar_one()
    await db.refresh(row)
    assert row.statut == "EN_ATTENTE" and row.derniere_erreur == "Aucun serveur SMTP configuré (UNIONFLOW_SMTP_HOST)"


async def test_read_in_app_before_delivery_is_not_emailed(app, client, factory, db, settings):
    org, secretaire = await staff(factory)
    member = await factory.actor(["MEMBRE"], organisation=org)
    await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, membreIds=[str(member.membre.id)]))
    notif = (await client.get(f"{BASE}/mes", headers=member.headers)).json()["content"][0]
    assert (await client.put(f"{BASE}/{notif['id']}/lue", headers=member.headers)).status_code == 200
    with smtp_server() as (mailbox, port):
        await _run(app, _settings(settings, port))
    assert notif["id"] not in mailbox.ids()


async def test_sms_gateway_and_event_cancellation(app, client, factory, db, settings):
    org = await factory.organisation()
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    by_sms = await factory.actor(["USER"], organisation=org)
    by_sms.membre.email, by_sms.membre.telephone = None, "+221781112233"
    await db.flush()
    evt = await create_event(client, organiser.headers, org.id)
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions", headers=by_sms.headers)).status_code == 201
    cancelled = await client.request("DELETE", f"/api/evenements/{evt['id']}", headers=organiser.headers,
                                     json={"motif": "Salle indisponible"})
    assert cancelled.status_code == 204
    notice = (await db.execute(select(NotificationEvenement).where(
        NotificationEvenement.membre_id == by_sms.membre.id))).scalar_one()
    queued = (await db.execute(select(Notification).where(Notification.source_id == notice.id))).scalar_one()
    assert queued.canal == "SMS" and queued.type_notification == "EVENEMENT_ANNULE"
    assert "Salle indisponible" in queued.corps and evt["titre"] in queued.sujet

    # Without a gateway the attempt is recorded with an explicit error.
    await _run(app, _settings(settings, None, notification_backoff_seconds=600))
    row = await _row(db, queued.id)
    assert row.statut == "EN_ATTENTE" and row.tentatives == 1
    assert row.derniere_erreur == "Aucune passerelle SMS configurée (UNIONFLOW_SMS_GATEWAY_URL)"
    row.prochaine_tentative = None
    await db.flush()
    with sms_gateway() as (received, url):
        await _run(app, _settings(settings, None, sms_gateway_url=url, sms_gateway_token="tok",
                                  sms_gateway_sender="UNION"))
    mine = [r for r in received if r["body"]["reference"] == str(queued.id)]
    assert len(mine) == 1 and mine[0]["authorization"] == "Bearer tok"
    assert mine[0]["body"]["to"] == "+221781112233" and mine[0]["body"]["sender"] == "UNION"
    assert "Salle indisponible" in mine[0]["body"]["message"]
    row = await _row(db, queued.id)
    assert row.statut == "ENVOYEE" and row.tentatives == 2
    assert (await db.get(NotificationEvenement, notice.id, populate_existing=True)).date_envoi is not None


async def test_sms_gateway_refusal_is_permanent(app, client, factory, db, settings):
    org, secretaire = await staff(factory)
    member = await factory.membre(org, email=None, telephone="+221770009999")
    await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, membreIds=[str(member.id)]))
    with sms_gateway(status=400) as (received, url):
        await _run(app, _settings(settings, None, sms_gateway_url=url, notification_backoff_seconds=600))
    row = (await db.execute(select(Notification).where(Notification.membre_id == member.id))).scalar_one()
    await db.refresh(row)
    assert len(received) == 1 and row.statut == "ECHOUEE" and row.tentatives == 1
    assert "HTTP 400" in (row.derniere_erreur or "")


@pytest.mark.postgresql_only
async def test_concurrent_workers_never_send_twice(app, committed_factory, committed_db, settings):
    org = await committed_factory.organisation()
    members = [await committed_factory.membre(org) for _ in range(24)]
    for m in members:
        committed_db.add(Notification(membre_id=m.id, organisation_id=org.id, type_notification="INFORMATION",
                                      canal="EMAIL", adresse=m.email, sujet="Test", corps="Bonjour",
                                      statut="EN_ATTENTE", tentatives=0))
    await committed_db.commit()
    with smtp_server() as (mailbox, port):
        config = _settings(settings, port, notification_lot=3)
        bilans = await asyncio.gather(*(LivreurNotifications(app.state.sessionmaker, config).run() for _ in range(3)))
    ids = mailbox.ids()
    assert len(ids) == 24 and len(set(ids)) == 24
    assert sum(b.envoyees for b in bilans) == 24 and sum(1 for b in bilans if b.envoyees) >= 2
    rows = (await committed_db.execute(select(Notification.statut, Notification.tentatives)
                                       .where(Notification.organisation_id == org.id))).all()
    assert all(r.statut == "ENVOYEE" and r.tentatives == 1 for r in rows)
