"""The member sets his USSD PIN from the console, through the API's service; the USSD menu then accepts it."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.ussd.passerelle import ussd
from unionflow.models import Notification
from unionflow.ussd import ecrans


async def test_member_sets_his_pin_in_the_console(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = "+221770000301"
    await db.flush()
    csrf = await sign_in(client, member, db)
    assert "/console/moi/pin-ussd" in (await client.get("/console/moi")).text
    form = await client.get("/console/moi/pin-ussd")
    assert form.status_code == 200 and "Aucun code PIN" in form.text
    refused = await client.post("/console/moi/pin-ussd", data={"csrf": csrf, "pin": "1234"})
    assert refused.status_code == 400 and "trop simple" in refused.text
    done = await client.post("/console/moi/pin-ussd", data={"csrf": csrf, "pin": "2580"})
    assert done.status_code == 303, done.text
    assert "Code PIN enregistré" in (await client.get(done.headers["location"])).text
    assert await ussd(client, "+221770000301", "2580") == ecrans.MENU
    assert (await client.post("/console/moi/pin-ussd", data={"pin": "2580"})).status_code == 403  # no CSRF


async def test_the_treasurer_sends_a_code_from_the_members_page(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = "+221770000302"
    await db.flush()
    csrf = await sign_in(client, treasurer, db)
    page = await client.get(f"/console/membres/{member.membre.id}")
    assert page.status_code == 200 and "pin-ussd/code-sms" in page.text
    done = await client.post(f"/console/membres/{member.membre.id}/pin-ussd/code-sms", data={"csrf": csrf})
    assert done.status_code == 303, done.text
    assert "Code envoyé par SMS" in (await client.get(done.headers["location"])).text
    sms = (await db.execute(select(Notification).where(Notification.membre_id == member.membre.id,
                                                       Notification.source_type == "CodePinSms"))).scalar_one()
    assert sms.adresse == "+221770000302"
    assert await ussd(client, "+221770000302", "") == ecrans.DEMANDE_CODE
