"""The PIN is verified with argon2 once per gateway session: the later steps of the session, which repeat it,
compare a digest; another PIN, another session or a reset PIN are verified again (and a wrong one still counts)."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from tests.factories.cotisations import cotisation
from tests.ussd.passerelle import ussd
from unionflow.core import passwords
from unionflow.ussd import ecrans, service
from unionflow.ussd.pin_session import PinsVerifies

PIN = "2580"


async def test_one_argon2_verification_per_session(client, factory, db, monkeypatch):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    phone = "+221770000601"
    member.membre.telephone = phone
    await db.flush()
    await cotisation(db, member.membre, org, 3000, echeance=date.today() - timedelta(days=3))
    assert (await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})).status_code == 200
    verifications: list[str] = []

    def counted(pin_hash, saisi):
        verifications.append(saisi)
        return passwords.verify_password(pin_hash, saisi)

    monkeypatch.setattr(service, "verify_password", counted)

    for text in ("", PIN, f"{PIN}*4", f"{PIN}*4*REC-X"):
        assert (await ussd(client, phone, text, session="ATUid_s1")).startswith("CON ")
    assert (await ussd(client, phone, f"{PIN}*1", session="ATUid_s1")).startswith("END ")
    assert verifications == [PIN]
    # The same session with another PIN (a gateway replaying with other inputs): verified, and counted wrong.
    assert await ussd(client, phone, "9714*1", session="ATUid_s1") == ecrans.pin_faux(2)
    assert verifications == [PIN, "9714"]
    assert await ussd(client, phone, f"{PIN}*1", session="ATUid_s2") != ecrans.pin_faux(1)  # a new session
    assert verifications == [PIN, "9714", PIN]
    # The treasury sets a new PIN: the session's digest no longer matches, the old PIN is refused.
    reset = await client.post(f"/api/ussd/pin/{member.membre.id}/reinitialiser", headers=treasurer.headers,
                              json={"nouveauPin": "9713"})
    assert reset.status_code == 200, reset.text
    assert await ussd(client, phone, f"{PIN}*1", session="ATUid_s1") == ecrans.pin_faux(2)
    assert verifications[-1] == PIN and len(verifications) == 4


def test_digests_expire_and_the_memory_is_bounded():
    now = [0.0]
    pins = PinsVerifies(duree=300, taille=2, horloge=lambda: now[0])
    cle = ("s1", "+221770000601", uuid.UUID(int=1))
    pins.retenir(cle, "hash", PIN)
    assert pins.deja_verifie(cle, "hash", PIN)
    assert not pins.deja_verifie(cle, "hash", "9714")
    assert not pins.deja_verifie(cle, "other-hash", PIN)
    now[0] = 300.0
    assert not pins.deja_verifie(cle, "hash", PIN)
    for n in range(3):
        pins.retenir((f"s{n}", "+221770000601", uuid.UUID(int=1)), "hash", PIN)
    assert not pins.deja_verifie(("s0", "+221770000601", uuid.UUID(int=1)), "hash", PIN)
    assert pins.deja_verifie(("s2", "+221770000601", uuid.UUID(int=1)), "hash", PIN)
