"""PIN before any figure, lockout after three wrong PINs and the treasury's audited reset; unknown phones; the
gateway's authentication and the per-phone rate limit."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.ussd.passerelle import SECRET, URL, ussd, valide
from unionflow.models import AuditLog
from unionflow.ussd import ecrans

PIN = "2580"


async def _membre(client, factory, db, org, telephone, pin=PIN):
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = telephone
    await db.flush()
    if pin is not None:
        assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": pin})).status_code == 200
    return member


async def test_three_wrong_pins_lock_until_the_treasury_resets(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    phone = "+221770000201"
    member = await _membre(client, factory, db, org, phone)
    await cotisation(db, member.membre, org, 5000, echeance=date.today() + timedelta(days=3))

    assert await ussd(client, phone, "1111*1") == ecrans.pin_faux(2)
    assert await ussd(client, phone, PIN) == ecrans.MENU  # a right PIN clears the count
    assert await ussd(client, phone, "1111") == ecrans.pin_faux(2)
    assert await ussd(client, phone, "2222") == ecrans.pin_faux(1)
    assert await ussd(client, phone, "3333*1") == ecrans.VERROUILLE
    # Locked: not even the right PIN shows a figure, on any screen.
    for text in ("", PIN, f"{PIN}*1", f"{PIN}*3"):
        assert await ussd(client, phone, text) == ecrans.VERROUILLE
    lock = (await db.execute(select(AuditLog).where(AuditLog.entite_id == str(member.membre.id),
                                                    AuditLog.type_action == "VERROUILLER"))).scalar_one()
    assert lock.module == "USSD"
    state = (await client.get("/api/ussd/pin/me", headers=member.headers)).json()
    assert state["verrouille"] is True and state["echecs"] == 3
    # The member cannot unlock himself by choosing a new PIN.
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": "9713"})).status_code == 409

    other_org = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other_org, org_roles=["MEMBRE", "TRESORIER"])
    reset_url = f"/api/ussd/pin/{member.membre.id}/reinitialiser"
    assert (await client.post(reset_url, headers=stranger.headers, json={})).status_code == 404
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    assert (await client.post(reset_url, headers=secretary.headers, json={})).status_code == 403
    assert (await client.post(reset_url, headers=member.headers, json={})).status_code == 403

    reset = await client.post(reset_url, headers=treasurer.headers, json={"nouveauPin": "9713"})
    assert reset.status_code == 200, reset.text
    assert reset.json() == {**reset.json(), "verrouille": False, "echecs": 0, "defini": True}
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == str(member.membre.id),
                                                     AuditLog.type_action == "REINITIALISER"))).scalar_one()
    assert entry.severite == "WARNING"
    assert await ussd(client, phone, PIN) == ecrans.pin_faux(2)  # the old PIN is gone
    assert "Vous devez: 5 000 F" in await ussd(client, phone, "9713*1")

    # A reset without a new PIN clears it: the member sets one again.
    assert (await client.post(reset_url, headers=treasurer.headers)).status_code == 200
    assert await ussd(client, phone, "") == ecrans.SANS_PIN_CODE


async def test_pin_rules(client, factory, db):
    org = await factory.organisation()
    member = await _membre(client, factory, db, org, "+221770000202", pin=None)
    for weak in ("1234", "0000", "98765", "12", "1234567", "12a4"):
        response = await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": weak})
        assert response.status_code == 400, weak
    assert (await client.get("/api/ussd/pin/me", headers=member.headers)).json()["defini"] is False
    assert await ussd(client, "+221770000202", "") == ecrans.SANS_PIN_CODE
    assert (await client.put("/api/ussd/pin/me", json={"pin": "2580"})).status_code == 401


async def test_unknown_phone_gets_a_polite_end_and_no_data(client, factory, db):
    org = await factory.organisation()
    await _membre(client, factory, db, org, "+221770000203")
    for text in ("", PIN, f"{PIN}*1"):
        assert await ussd(client, "+221770000299", text) == ecrans.INCONNU
    # A member no longer active is unknown too.
    gone = await _membre(client, factory, db, org, "+221770000204")
    gone.membre.statut = "RADIE"
    await db.flush()
    assert await ussd(client, "+221770000204", PIN) == ecrans.INCONNU


async def test_callback_refused_without_the_gateway_credentials(client, app, factory, db, monkeypatch):
    org = await factory.organisation()
    phone = "+221770000205"
    await _membre(client, factory, db, org, phone)
    form = {"sessionId": "s1", "serviceCode": "*384*31#", "phoneNumber": phone, "text": f"{PIN}*1"}
    assert (await client.post(URL, data=form)).status_code == 401
    assert (await client.post(URL, data=form, headers={"X-USSD-Secret": "wrong"})).status_code == 401
    by_query = await client.post(URL, data=form, params={"secret": SECRET})
    assert by_query.status_code == 200 and "Vous devez" in valide(by_query.text)

    monkeypatch.setattr(app.state.settings, "ussd_allowed_networks", ["196.201.214.0/24"])
    assert (await client.post(URL, data=form, headers={"X-USSD-Secret": SECRET})).status_code == 403
    monkeypatch.setattr(app.state.settings, "ussd_allowed_networks", ["127.0.0.0/8"])
    assert (await client.post(URL, data=form, headers={"X-USSD-Secret": SECRET})).status_code == 200

    # No secret configured: the service is closed, whatever the caller sends.
    monkeypatch.setattr(app.state.settings, "ussd_gateway_secret", None)
    assert (await client.post(URL, data=form, headers={"X-USSD-Secret": SECRET})).status_code == 401
    monkeypatch.setattr(app.state.settings, "ussd_gateway_secret", SECRET)
    bad = {**form, "phoneNumber": "770000205"}
    assert (await client.post(URL, data=bad, headers={"X-USSD-Secret": SECRET})).status_code == 400


async def test_rate_limited_per_phone(client, app, factory, db, monkeypatch):
    org = await factory.organisation()
    await _membre(client, factory, db, org, "+221770000206")
    await _membre(client, factory, db, org, "+221770000207")
    monkeypatch.setattr(app.state.settings, "ussd_max_requests", 3)
    for _ in range(3):
        await ussd(client, "+221770000206", PIN)
    response = await client.post(URL, headers={"X-USSD-Secret": SECRET}, data={
        "sessionId": "s", "phoneNumber": "+221770000206", "text": PIN})
    assert response.status_code == 429 and response.text == ecrans.TROP_DE_DEMANDES
    assert int(response.headers["Retry-After"]) > 0
    assert await ussd(client, "+221770000207", PIN) == ecrans.MENU  # another phone is not affected
