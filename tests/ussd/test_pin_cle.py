"""The PIN as a keyed digest (HMAC-SHA256, key outside the database): what is stored, a dump under another key, a
rotation, argon2 PINs of before upgraded at their next right use, and the PIN checked at every step again."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.ussd.passerelle import ussd
from unionflow.config import Settings
from unionflow.core.passwords import hash_password
from unionflow.core.production import production_refusals
from unionflow.models import PinUssd
from unionflow.ussd import ecrans, empreinte, service

PIN = "2580"
CLE_A, CLE_B = "a" * 32, "b" * 32


async def _membre(client, factory, db, telephone: str):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = telephone
    await db.flush()
    await cotisation(db, member.membre, org, 3000, echeance=date.today() - timedelta(days=3))
    return org, member


async def _pin(db, membre_id: uuid.UUID) -> PinUssd:
    pin = (await db.execute(select(PinUssd).where(PinUssd.membre_id == membre_id))).scalar_one()
    await db.refresh(pin)
    return pin


async def test_the_stored_digest_is_keyed_neither_argon2_nor_the_pin(client, factory, db):
    _, member = await _membre(client, factory, db, "+221770000611")
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})).status_code == 200
    stocke = (await _pin(db, member.membre.id)).pin_hash
    assert stocke is not None and stocke.startswith("hmac1$dev$") and len(stocke.split("$")[2]) == 64
    assert not stocke.startswith("$argon2") and PIN not in stocke
    assert await ussd(client, "+221770000611", f"{PIN}*1") != ecrans.pin_faux(2)


async def test_a_dump_does_not_verify_under_another_key(client, factory, db, app, monkeypatch):
    _, member = await _membre(client, factory, db, "+221770000612")
    monkeypatch.setattr(app.state.settings, "ussd_pin_cle", CLE_A)
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})).status_code == 200
    stocke = (await _pin(db, member.membre.id)).pin_hash
    assert stocke is not None and stocke.startswith("hmac1$1$")
    assert await ussd(client, "+221770000612", PIN) == ecrans.MENU
    # The same table read by someone holding another key (same kid): the right PIN does not verify.
    monkeypatch.setattr(app.state.settings, "ussd_pin_cle", CLE_B)
    assert await ussd(client, "+221770000612", PIN) == ecrans.pin_faux(2)
    mid = member.membre.id
    a, b = Settings(ussd_pin_cle=CLE_A), Settings(ussd_pin_cle=CLE_B)
    assert (await empreinte.controler(a, "pin", mid, stocke, PIN)).juste
    assert not (await empreinte.controler(b, "pin", mid, stocke, PIN)).juste
    # Copied to another member's row, or to the SMS codes' table: it verifies there neither.
    assert not (await empreinte.controler(a, "pin", uuid.uuid4(), stocke, PIN)).juste
    assert not (await empreinte.controler(a, "code-sms", mid, stocke, PIN)).juste


async def test_a_rotated_key_keeps_verifying_and_is_restored_under_the_new_one(client, factory, db, app,
                                                                               monkeypatch):
    _, member = await _membre(client, factory, db, "+221770000613")
    monkeypatch.setattr(app.state.settings, "ussd_pin_cle", CLE_A)
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})).status_code == 200
    monkeypatch.setattr(app.state.settings, "ussd_pin_cle", CLE_B)
    monkeypatch.setattr(app.state.settings, "ussd_pin_cle_id", "2")
    assert await ussd(client, "+221770000613", PIN) == ecrans.pin_faux(2)  # former key dropped: unknown kid
    monkeypatch.setattr(app.state.settings, "ussd_pin_cles_anciennes", {"1": CLE_A})
    assert await ussd(client, "+221770000613", PIN) == ecrans.MENU
    stocke = (await _pin(db, member.membre.id)).pin_hash
    assert stocke is not None and stocke.startswith("hmac1$2$")
    monkeypatch.setattr(app.state.settings, "ussd_pin_cles_anciennes", {})
    assert await ussd(client, "+221770000613", PIN) == ecrans.MENU


async def test_an_argon2_pin_verifies_once_and_is_upgraded(client, factory, db, monkeypatch):
    _, member = await _membre(client, factory, db, "+221770000614")
    db.add(PinUssd(membre_id=member.membre.id, pin_hash=hash_password(PIN), echecs=0, verrouille=False))
    await db.flush()
    argon2: list[str] = []
    verify = empreinte.verify_password

    def counted(stocke: str, saisi: str) -> bool:
        argon2.append(saisi)
        return verify(stocke, saisi)

    monkeypatch.setattr(empreinte, "verify_password", counted)
    assert await ussd(client, "+221770000614", "9714") == ecrans.pin_faux(2)  # wrong: counted, not upgraded
    assert (await _pin(db, member.membre.id)).pin_hash.startswith("$argon2")  # type: ignore[union-attr]
    assert await ussd(client, "+221770000614", PIN) == ecrans.MENU
    pin = await _pin(db, member.membre.id)
    assert pin.pin_hash is not None and pin.pin_hash.startswith("hmac1$") and pin.echecs == 0
    for text in (PIN, f"{PIN}*1"):
        assert await ussd(client, "+221770000614", text) != ecrans.pin_faux(2)
    assert argon2 == ["9714", PIN]  # argon2 no more once upgraded


async def test_the_pin_is_checked_at_every_step(client, factory, db, monkeypatch):
    """No memory between steps (any worker answers any step): each answer checks the PIN it is sent, cheaply; a
    treasury reset applies at the very next step."""
    org, member = await _membre(client, factory, db, "+221770000615")
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})).status_code == 200
    checks: list[str] = []
    controler = service.controler

    async def counted(settings, but, membre_id, stocke, saisi):
        checks.append(saisi)
        return await controler(settings, but, membre_id, stocke, saisi)

    monkeypatch.setattr(service, "controler", counted)
    for text in (PIN, f"{PIN}*4", f"{PIN}*4*REC-X"):
        assert (await ussd(client, "+221770000615", text)).startswith("CON ")
    assert checks == [PIN, PIN, PIN]
    reset = await client.post(f"/api/ussd/pin/{member.membre.id}/reinitialiser", headers=treasurer.headers,
                              json={"nouveauPin": "9713"})
    assert reset.status_code == 200, reset.text
    assert await ussd(client, "+221770000615", f"{PIN}*4") == ecrans.pin_faux(2)
    assert await ussd(client, "+221770000615", "9713*4") != ecrans.pin_faux(1)


def test_production_refuses_to_start_without_a_key_of_its_own():
    base = {"environment": "production", "database_url": "postgresql://u:Vrai-Secret-8213@db/u"}
    [absente] = production_refusals(Settings(**base))
    assert "UNIONFLOW_USSD_PIN_CLE is not set" in absente
    [courte] = production_refusals(Settings(**base, ussd_pin_cle="court-mais-secret"))
    assert "too short" in courte
    [exemple] = production_refusals(Settings(**base, ussd_pin_cle="CHANGE_ME"))
    assert "USSD_PIN_CLE holds an example value" in exemple
    assert production_refusals(Settings(**base, ussd_pin_cle=CLE_A)) == []
    assert production_refusals(Settings(database_url=base["database_url"])) == []  # development: the dev key
