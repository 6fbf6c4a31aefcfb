"""Wrong PINs sent at once (a gateway retrying, or someone trying codes from several sessions) still lock after
three, with one audited lock."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from tests.ussd.passerelle import SECRET, URL, valide
from unionflow.models import AuditLog, PinUssd
from unionflow.ussd import ecrans


async def test_concurrent_wrong_pins_lock_once(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = "+221770000401"
    await committed_db.commit()
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": "2580"})).status_code == 200

    responses = await asyncio.gather(*(client.post(URL, headers={"X-USSD-Secret": SECRET}, data={
        "sessionId": f"s{i}", "phoneNumber": "+221770000401", "text": f"11{i:02d}"}) for i in range(8)))
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    screens = [valide(r.text) for r in responses]
    assert screens.count(ecrans.pin_faux(2)) <= 1 and screens.count(ecrans.pin_faux(1)) <= 1
    assert ecrans.VERROUILLE in screens
    pin = (await committed_db.execute(select(PinUssd).where(PinUssd.membre_id == member.membre.id))).scalar_one()
    assert pin.verrouille is True and pin.echecs >= 3
    locks = (await committed_db.execute(select(func.count()).select_from(AuditLog).where(
        AuditLog.entite_id == str(member.membre.id), AuditLog.type_action == "VERROUILLER"))).scalar_one()
    assert locks == 1
