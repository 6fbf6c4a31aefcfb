"""Keyed digests of the USSD PIN and of the one-time SMS code: HMAC-SHA256 under a key held outside the database
(``UNIONFLOW_USSD_PIN_CLE``), over (purpose, member, secret typed). Stored as ``hmac1$<kid>$<hex>``.

Why not argon2 (docs/decisions.md, « Code PIN USSD: empreinte à clé »): 4 to 6 digits are 10^4 to 10^6 values,
which a stolen table gives up whatever the hash's cost; what protects the PIN is the lock after three wrong ones
and a digest that is useless without a key the database does not hold. HMAC costs microseconds, argon2 0.2 s.

The kid names the key a digest was made with: after a rotation, former keys (``UNIONFLOW_USSD_PIN_CLES_ANCIENNES``)
keep verifying and the caller re-stores the digest under the current key. PINs stored before this scheme (argon2,
``$argon2…``) verify once more through argon2 and are re-stored the same way.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import uuid
from dataclasses import dataclass
from typing import Literal

from unionflow.config import Settings
from unionflow.core.passwords import verify_password

PREFIXE = "hmac1"
# Outside production only, when no key is set: in the source, so production refuses to start without a key of
# its own (core/production.py), and its kid ``dev`` is never one a configured key may take by accident.
KID_DEVELOPPEMENT = "dev"
_CLE_DEVELOPPEMENT = hashlib.sha256(b"unionflow: cle de developpement du PIN USSD, jamais en production").digest()

But = Literal["pin", "code-sms"]


@dataclass(frozen=True)
class Controle:
    """A secret typed against a stored digest: right or not, and whether the digest should be re-stored under the
    current key (argon2 or a former key)."""

    juste: bool
    a_renouveler: bool = False


def _cle_courante(settings: Settings) -> tuple[str, bytes]:
    if settings.ussd_pin_cle:
        return settings.ussd_pin_cle_id, settings.ussd_pin_cle.encode()
    if settings.environment.strip().lower() == "production":
        raise RuntimeError("UNIONFLOW_USSD_PIN_CLE is not set")  # the start check refuses it before this
    return KID_DEVELOPPEMENT, _CLE_DEVELOPPEMENT


def _cle(settings: Settings, kid: str) -> bytes | None:
    courant, cle = _cle_courante(settings)
    if kid == courant:
        return cle
    ancienne = settings.ussd_pin_cles_anciennes.get(kid)
    return ancienne.encode() if ancienne else None


def _hmac(cle: bytes, but: But, membre_id: uuid.UUID, secret: str) -> str:
    # The member and the purpose are in the message: a digest copied to another member's row, or from the SMS
    # code's table to the PIN's, does not verify there.
    message = b"\0".join((b"unionflow-ussd", but.encode(), membre_id.bytes, secret.encode()))
    return hmac.new(cle, message, hashlib.sha256).hexdigest()


def empreinte(settings: Settings, but: But, membre_id: uuid.UUID, secret: str) -> str:
    """The digest to store, under the current key."""
    kid, cle = _cle_courante(settings)
    return f"{PREFIXE}${kid}${_hmac(cle, but, membre_id, secret)}"


def avant_les_cles(stocke: str | None) -> bool:
    """An argon2 digest stored before the keyed ones: its check costs 0.2 s of CPU and either outcome writes (a
    failure counted, or the PIN re-stored under the key), so it is never made twice for one answer."""
    return stocke is not None and stocke.startswith("$argon2")


async def controler(settings: Settings, but: But, membre_id: uuid.UUID, stocke: str | None,
                    saisi: str) -> Controle:
    """``saisi`` against ``stocke``, in constant time for a keyed digest. An unknown kid (a key dropped from the
    settings) never verifies."""
    if stocke is None:
        return Controle(False)
    if stocke.startswith(PREFIXE + "$"):
        _, kid, attendu = stocke.split("$", 2) if stocke.count("$") == 2 else ("", "", "")
        cle = _cle(settings, kid)
        if cle is None:
            return Controle(False)
        juste = hmac.compare_digest(attendu, _hmac(cle, but, membre_id, saisi))
        return Controle(juste, juste and kid != _cle_courante(settings)[0])
    if stocke.startswith("$argon2"):
        # Stored before the keyed digests: one argon2 check (0.2 s, off the event loop), then re-stored.
        juste = await asyncio.to_thread(verify_password, stocke, saisi)
        return Controle(juste, juste)
    return Controle(False)
