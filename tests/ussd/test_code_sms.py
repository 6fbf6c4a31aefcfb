"""The USSD PIN set with a one-time SMS code: asked for from the USSD menu or by the treasury, hashed, expiring,
three tries, audited; the code's SMS body leaves the database once sent."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from tests.sms.passerelles import africastalking
from tests.ussd.passerelle import ussd
from unionflow.models import AuditLog, CodePinSms, Notification
from unionflow.notifications.delivery import LivreurNotifications
from unionflow.notifications.gsm import septets
from unionflow.ussd import ecrans


async def _membre(factory, db, org, telephone, **values):
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone, member.membre.email = telephone, None
    for key, value in values.items():
        setattr(member.membre, key, value)
    await db.flush()
    return member


async def _code(db, membre_id) -> tuple[Notification, str]:
    rows = await db.execute(select(Notification).where(Notification.membre_id == membre_id,
                                                       Notification.source_type == "CodePinSms")
                            .order_by(Notification.created_at.desc()))
    row = rows.scalars().first()
    assert row is not None and row.canal == "SMS"
    assert septets(row.corps) is not None and septets(row.corps) <= 160, row.corps
    match = re.search(r"\b([0-9]{6})\b", row.corps)
    assert match, row.corps
    return row, match.group(1)


async def _actions(db, membre_id) -> list[str]:
    rows = await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == str(membre_id))
                            .order_by(AuditLog.date_heure))
    return list(rows.scalars())


async def test_a_member_sets_his_pin_with_a_code_asked_from_ussd(app, client, factory, db, settings):
    org = await factory.organisation()
    phone = "+221770000601"
    member = await _membre(factory, db, org, phone)
    assert await ussd(client, phone, "") == ecrans.SANS_PIN_CODE
    assert await ussd(client, phone, "7") == ecrans.CHOIX_INVALIDE
    assert await ussd(client, phone, "1") == ecrans.CODE_ENVOYE
    sms, code = await _code(db, member.membre.id)
    assert sms.adresse == phone and sms.statut == "EN_ATTENTE"
    stored = (await db.execute(select(CodePinSms).where(CodePinSms.membre_id == member.membre.id))).scalar_one()
    assert code not in stored.code_hash and stored.essais == 0 and stored.demande_par == "ussd"

    assert await ussd(client, phone, "") == ecrans.DEMANDE_CODE
    wrong = "000000" if code != "000000" else "111111"
    assert await ussd(client, phone, wrong) == ecrans.code_faux(2)
    assert await ussd(client, phone, code) == ecrans.NOUVEAU_PIN
    assert await ussd(client, phone, f"{code}*1234") == ecrans.PIN_REFUSE
    assert await ussd(client, phone, f"{code}*2580") == ecrans.CONFIRMER_PIN
    assert await ussd(client, phone, f"{code}*2580*2581") == ecrans.PIN_DIFFERENT
    assert await ussd(client, phone, f"{code}*2580*2580") == ecrans.PIN_CREE
    assert await ussd(client, phone, "2580") == ecrans.MENU
    assert "Vous devez" in await ussd(client, phone, "2580*1")
    assert (await db.execute(select(CodePinSms).where(CodePinSms.membre_id == member.membre.id))).first() is None
    assert (await client.get("/api/ussd/pin/me", headers=member.headers)).json()["defini"] is True
    assert await _actions(db, member.membre.id) == ["ENVOYER_CODE", "DEFINIR"]

    # The SMS leaves through the gateway; its body (the code) is then removed from the outbox.
    tuned = settings.model_copy(update={"sms_passerelle": "africastalking", "sms_africastalking_username": "sandbox",
                                        "sms_africastalking_api_key": "at-key", "notification_backoff_seconds": 0})
    with africastalking() as (gateway, url):
        tuned = tuned.model_copy(update={"sms_africastalking_url": url})
        await LivreurNotifications(app.state.sessionmaker, tuned).run()
    assert [m["message"] for m in gateway.recus if m["to"] == phone] == [sms.corps]
    sent = await db.get(Notification, sms.id, populate_existing=True)
    assert sent is not None and sent.statut == "ENVOYEE" and code not in sent.corps


async def test_three_wrong_codes_void_it_and_an_expired_code_is_gone(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000602"
    member = await _membre(factory, db, org, phone)
    assert await ussd(client, phone, "1") == ecrans.CODE_ENVOYE
    _, code = await _code(db, member.membre.id)
    wrongs = [c for c in ("000000", "111111", "222222", "333333") if c != code][:3]
    assert [await ussd(client, phone, w) for w in wrongs] == [ecrans.code_faux(2), ecrans.code_faux(1),
                                                              ecrans.code_faux(0)]
    # Void: the right one too; the menu offers a new code again.
    assert await ussd(client, phone, f"{code}*2580*2580") == ecrans.CHOIX_INVALIDE
    assert await _actions(db, member.membre.id) == ["ENVOYER_CODE", "ANNULER_CODE"]

    assert await ussd(client, phone, "1") == ecrans.CODE_ENVOYE  # a new one
    _, code = await _code(db, member.membre.id)
    stored = (await db.execute(select(CodePinSms).where(CodePinSms.membre_id == member.membre.id))).scalar_one()
    stored.expire_le = datetime.now(UTC) - timedelta(seconds=1)
    await db.flush()
    assert await ussd(client, phone, f"{code}*2580*2580") == ecrans.CHOIX_INVALIDE
    assert await ussd(client, phone, "") == ecrans.SANS_PIN_CODE


async def test_a_new_code_replaces_the_old_one(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000603"
    member = await _membre(factory, db, org, phone)
    assert await ussd(client, phone, "1") == ecrans.CODE_ENVOYE
    _, old = await _code(db, member.membre.id)
    assert await ussd(client, phone, "0") == ecrans.CODE_ENVOYE
    _, new = await _code(db, member.membre.id)
    if old != new:
        assert await ussd(client, phone, old) == ecrans.code_faux(2)
    assert await ussd(client, phone, f"{new}*2580*2580") == ecrans.PIN_CREE


async def test_a_shared_phone_gets_no_code(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000604"
    await _membre(factory, db, org, phone, prenom="Awa")
    await _membre(factory, db, org, phone, prenom="Binta")
    assert await ussd(client, phone, "1") == ecrans.SANS_PIN_PARTAGE
    assert await ussd(client, phone, "1*1") == ecrans.SANS_PIN_PARTAGE


async def test_the_treasury_sends_a_code(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    phone = "+221770000605"
    member = await _membre(factory, db, org, phone)
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": "2580"})).status_code == 200
    url = f"/api/ussd/pin/{member.membre.id}/code-sms"
    assert (await client.post(url, headers=secretary.headers)).status_code == 403
    assert (await client.post(url, headers=member.headers)).status_code == 403
    sent = await client.post(url, headers=treasurer.headers)
    assert sent.status_code == 200, sent.text
    assert sent.json()["defini"] is False and sent.json()["verrouille"] is False
    sms, code = await _code(db, member.membre.id)
    assert sms.adresse == phone
    assert await ussd(client, phone, "2580") == ecrans.code_faux(2)  # the old PIN is gone; a code is awaited
    assert await ussd(client, phone, f"{code}*9713*9713") == ecrans.PIN_CREE
    assert await _actions(db, member.membre.id) == ["DEFINIR", "REINITIALISER", "ENVOYER_CODE", "DEFINIR"]

    without = await _membre(factory, db, org, "+221770000606")
    without.membre.telephone = None
    await db.flush()
    refused = await client.post(f"/api/ussd/pin/{without.membre.id}/code-sms", headers=treasurer.headers)
    assert refused.status_code == 400
