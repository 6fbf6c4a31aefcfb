"""The outbox sends through Africa's Talking and Orange's SMS API (loopback servers speaking their protocols),
records each message's gateway id and then its delivery report; a wave of reminders leaves at the gateway's rate."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from bench.sms import Horodates, pointe
from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.sms.passerelles import ACCUSES, SECRET, africastalking, orange
from unionflow.models import Notification, RappelCotisation
from unionflow.notifications.delivery import BilanEnvoi, LivreurNotifications
from unionflow.notifications.gsm import septets


async def _rappel_sms(client, factory, db, org, treasurer, telephone: str) -> Notification:
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone, member.membre.email = telephone, None
    await db.flush()
    await cotisation(db, member.membre, org, 2500, echeance=date.today() - timedelta(days=2))
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(member.membre.id)])
    assert reminded.status_code == 200, reminded.text
    rappel_id = uuid.UUID(reminded.json()["rappels"][0]["id"])
    return (await db.execute(select(Notification).where(Notification.source_id == rappel_id))).scalar_one()


def _at(settings, url, **values):
    return settings.model_copy(update={"sms_passerelle": "africastalking", "sms_africastalking_url": url,
                                       "sms_africastalking_username": "sandbox", "sms_africastalking_api_key": "at-key",
                                       "sms_gateway_sender": "UNIONFLOW", "notification_backoff_seconds": 0,
                                       **values})


async def test_africas_talking_sends_and_records_the_delivery_report(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    queued = await _rappel_sms(client, factory, db, org, treasurer, "+221770000301")
    with africastalking() as (gateway, url):
        bilan = await LivreurNotifications(app.state.sessionmaker, _at(settings, url)).run()
    assert bilan.envoyees >= 1
    [sent] = [m for m in gateway.recus if m["to"] == "+221770000301"]
    assert sent["username"] == "sandbox" and sent["from"] == "UNIONFLOW" and sent["message"] == queued.corps
    assert septets(sent["message"]) is not None and septets(sent["message"]) <= 160
    row = await db.get(Notification, queued.id, populate_existing=True)
    assert row is not None and row.statut == "ENVOYEE" and row.reference_passerelle is not None
    assert row.reference_passerelle.startswith("ATXid_")

    # The delivery report, as Africa's Talking posts it (form fields id, status, phoneNumber, networkCode, …).
    report = await client.post(ACCUSES, headers={"X-SMS-Secret": SECRET}, data={
        "id": row.reference_passerelle, "status": "Failed", "phoneNumber": "+221770000301", "networkCode": "60801",
        "failureReason": "AbsentSubscriber", "retryCount": "0"})
    assert report.status_code == 200 and report.json() == {"enregistres": 1}
    row = await db.get(Notification, queued.id, populate_existing=True)
    assert row is not None and row.accuse_statut == "Failed" and row.accuse_detail == "AbsentSubscriber"
    assert row.accuse_le is not None
    delivered = await client.post(ACCUSES, headers={"X-SMS-Secret": SECRET}, data={
        "id": row.reference_passerelle, "status": "Success", "phoneNumber": "+221770000301", "networkCode": "60801"})
    assert delivered.json() == {"enregistres": 1}
    mine = (await client.get("/api/notifications", headers=treasurer.headers, params={"canal": "SMS"})).json()
    [shown] = [n for n in mine["content"] if n["id"] == str(queued.id)]
    assert shown["accuseStatut"] == "Success" and shown["referencePasserelle"] == row.reference_passerelle
    unknown = await client.post(ACCUSES, headers={"X-SMS-Secret": SECRET}, data={"id": "nope", "status": "Success"})
    assert unknown.json() == {"enregistres": 0}


async def test_africas_talking_refusals(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    queued = await _rappel_sms(client, factory, db, org, treasurer, "+221770000302")
    with africastalking(status_code=403) as (_gateway, url):
        await LivreurNotifications(app.state.sessionmaker, _at(settings, url)).run()
    row = await db.get(Notification, queued.id, populate_existing=True)
    assert row is not None and row.statut == "ECHOUEE" and "InvalidPhoneNumber" in (row.derniere_erreur or "")
    rappel = await db.get(RappelCotisation, queued.source_id, populate_existing=True)
    assert rappel is not None and rappel.statut == "ECHEC"
    queued = await _rappel_sms(client, factory, db, org, treasurer, "+221770000303")
    with africastalking(api_key="another") as (_gateway, url):  # wrong key: 401, retried later
        await LivreurNotifications(app.state.sessionmaker, _at(settings, url, notification_max_tentatives=5,
                                                               notification_backoff_seconds=600)).run()
    row = await db.get(Notification, queued.id, populate_existing=True)
    assert row is not None and row.statut == "EN_ATTENTE" and "HTTP 401" in (row.derniere_erreur or "")


async def test_orange_token_send_and_delivery_receipt(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    first = await _rappel_sms(client, factory, db, org, treasurer, "+221770000304")
    second = await _rappel_sms(client, factory, db, org, treasurer, "+221770000305")
    with orange() as (gateway, base):
        gateway.revoquer = True  # the first send meets an expired token: renewed once, then sent
        tuned = settings.model_copy(update={
            "sms_passerelle": "orange", "sms_orange_url": base, "sms_orange_client_id": "orange-id",
            "sms_orange_client_secret": "orange-secret", "sms_orange_expediteur": "+2210000",
            "sms_orange_nom_expediteur": "UnionFlow", "notification_backoff_seconds": 0})
        await LivreurNotifications(app.state.sessionmaker, tuned).run()
    mine = [r for r in gateway.recus if r["address"] in ("tel:+221770000304", "tel:+221770000305")]
    assert [r["address"] for r in mine] == ["tel:+221770000304", "tel:+221770000305"]
    assert all(r["senderAddress"] == "tel:+2210000" and r["senderName"] == "UnionFlow" for r in mine)
    assert mine[0]["outboundSMSTextMessage"]["message"] == first.corps
    assert set(gateway.chemins) == {"/smsmessaging/v1/outbound/tel%3A%2B2210000/requests"}
    assert len(gateway.jetons) == 2  # one token, renewed once after the 401, kept for the next message
    rows = [await db.get(Notification, n.id, populate_existing=True) for n in (first, second)]
    assert all(r is not None and r.statut == "ENVOYEE" and (r.reference_passerelle or "").startswith("orange-")
               for r in rows)

    # Orange's delivery receipt: JSON deliveryInfoNotification, callbackData naming the request.
    receipt = await client.post(ACCUSES, headers={"X-SMS-Secret": SECRET}, json={"deliveryInfoNotification": {
        "callbackData": rows[1].reference_passerelle,
        "deliveryInfo": {"address": "tel:+221770000305", "deliveryStatus": "DeliveredToTerminal"}}})
    assert receipt.status_code == 200 and receipt.json() == {"enregistres": 1}
    stored = await db.get(Notification, second.id, populate_existing=True)
    assert stored is not None and stored.accuse_statut == "DeliveredToTerminal"


async def test_orange_without_credentials_is_an_explicit_error(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    queued = await _rappel_sms(client, factory, db, org, treasurer, "+221770000306")
    tuned = settings.model_copy(update={"sms_passerelle": "orange", "notification_backoff_seconds": 600})
    await LivreurNotifications(app.state.sessionmaker, tuned).run()
    row = await db.get(Notification, queued.id, populate_existing=True)
    assert row is not None and row.statut == "EN_ATTENTE" and "Orange non configuré" in (row.derniere_erreur or "")


async def test_a_wave_of_reminders_leaves_in_order_at_the_gateway_rate(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    phones = [f"+2217700004{n:02d}" for n in range(12)]
    members = []
    for phone in phones:
        member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
        member.membre.telephone, member.membre.email = phone, None
        members.append(member)
    by_mail = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])  # e-mails flow meanwhile
    await db.flush()
    for member in [*members, by_mail]:
        await cotisation(db, member.membre, org, 1500, echeance=date.today() - timedelta(days=1))
    wave = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                             json=[str(m.membre.id) for m in [*members, by_mail]])
    assert wave.status_code == 200 and wave.json()["envoyes"] == 13
    outbox = list((await db.execute(select(Notification).where(Notification.adresse.in_(phones))
                                   .order_by(Notification.created_at, Notification.id))).scalars())
    assert len(outbox) == 12

    with africastalking() as (gateway, url):
        livreur = LivreurNotifications(app.state.sessionmaker, _at(settings, url, sms_messages_par_seconde=5,
                                                                   smtp_host=None))
        per_tick, mine_per_tick = [], []
        bilan = BilanEnvoi()
        while await livreur.lot(bilan):
            assert livreur.sms_du_lot <= 5  # one batch per tick, at most the rate
            per_tick.append(livreur.sms_du_lot)
            mine_per_tick.append(sum(1 for m in gateway.recus[sum(per_tick[:-1]):] if m["to"] in phones))
        sent = [m["to"] for m in gateway.recus if m["to"] in phones]
    assert sent == [n.adresse for n in outbox]  # the outbox's order
    assert len(gateway.recus) == sum(per_tick)
    # 12 of ours at 5 a tick: three ticks at least, the first ones full.
    assert sum(mine_per_tick) == 12 and len([n for n in mine_per_tick if n]) >= 3
    mail = (await db.execute(select(Notification).where(Notification.membre_id == by_mail.membre.id))).scalar_one()
    assert mail.canal == "EMAIL" and mail.tentatives >= 1  # tried in the first batch, not after the SMS


async def test_run_paces_full_batches(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    for n in range(7):
        await _rappel_sms(client, factory, db, org, treasurer, f"+2217700005{n:02d}")
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    with africastalking() as (gateway, url):
        bilan = await LivreurNotifications(app.state.sessionmaker, _at(settings, url, sms_messages_par_seconde=3),
                                           pause=pause).run()
    assert bilan.envoyees >= 7
    mine = [m for m in gateway.recus if m["to"].startswith("+2217700005")]
    assert len(mine) == 7
    # 3 + 3 + 1: two full batches, each followed by the rest of its second; never more than 3 a batch.
    assert len(pauses) >= 2 and all(0 <= p <= 1 for p in pauses)


async def test_never_more_than_the_rate_within_any_second(app, client, factory, db, settings):
    """Per SMS, not per batch: two batches never share one second at the gateway (real waits, 3 SMS a second)."""
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    for n in range(7):
        await _rappel_sms(client, factory, db, org, treasurer, f"+2217700006{n:02d}")
    recus = Horodates()
    with africastalking(recus=recus) as (_gateway, url):
        bilan = await LivreurNotifications(app.state.sessionmaker, _at(settings, url, sms_messages_par_seconde=3)).run()
    assert bilan.envoyees >= 7
    mine = [t for t, m in zip(recus.instants, recus, strict=True) if m["to"].startswith("+2217700006")]
    assert len(mine) == 7 and pointe(recus.instants) <= 3
