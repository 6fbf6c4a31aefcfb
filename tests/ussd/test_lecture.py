"""Screens that only read run on a read pass (core/passe_lecture.py): they answer during a maintenance window, as
the API's reads do; an answer that writes (a wrong PIN) waits for the window's end, 503 with Retry-After, and is
counted once when it comes."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.core.test_maintenance import _hold_gate
from tests.factories.cotisations import cotisation
from tests.ussd.passerelle import SECRET, URL, ussd
from unionflow.core import maintenance
from unionflow.models.ussd import PinUssd
from unionflow.ussd import ecrans
from unionflow.ussd.empreinte import empreinte

PIN = "2580"


async def test_reading_screens_answer_during_maintenance_and_a_wrong_pin_waits(app, client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    phone = "+221770000701"
    member.membre.telephone = phone
    await db.flush()
    # Written here, not through the API: on PostgreSQL a write request of this test's transaction would hold the
    # gate's shared lock until the test ends, and the window could never open.
    db.add(PinUssd(membre_id=member.membre.id, pin_hash=empreinte(app.state.settings, "pin", member.membre.id, PIN),
                   echecs=0, verrouille=False))
    await cotisation(db, member.membre, org, 5000, echeance=date.today() + timedelta(days=3))
    release = await _hold_gate(app, db)
    try:
        solde = await ussd(client, phone, f"{PIN}*1")
        faux = await client.post(URL, headers={"X-USSD-Secret": SECRET}, data={
            "sessionId": "ATUid_1", "serviceCode": "*384*31#", "phoneNumber": phone, "text": "1111"})
    finally:
        await release()
    assert ecrans.francs(Decimal(5000)) in solde, solde
    assert faux.status_code == 503 and faux.headers["retry-after"] == str(maintenance.RETRY_AFTER_SECONDS)
    pin = (await db.execute(select(PinUssd).where(PinUssd.membre_id == member.membre.id))).scalar_one()
    assert pin.echecs == 0  # refused whole: neither pass counted it
    assert await ussd(client, phone, "1111") == ecrans.pin_faux(2)
    await db.refresh(pin)
    assert pin.echecs == 1  # counted once, not once per pass
