"""The PIN checked once per USSD session, not at every step.

The gateway sends every input of the session at each step (``text``: ``2580``, ``2580*4``, ``2580*4*REC-…``), so
each answer would verify the PIN again with argon2 — about 0.2 s of CPU on purpose (docs/performance.md):
the cost of a session of five answers was five verifications. Once the PIN is right, the step remembers, for this
(gateway session, phone, member), a keyed digest of (the stored hash, the PIN typed); the next steps of the session
compare digests. Argon2 runs again when anything differs: another PIN typed (it is then counted as wrong as
before), a hash changed by a reset, another session, or after ``DUREE``.

Process memory with a key drawn at start: nothing is written anywhere, nothing outlives the process, and what is
kept is of no use without the key. A lock still applies at once (the PIN's row is read at every step). A worker
that did not serve the session's earlier steps verifies once itself: with N workers, at most N verifications per
session (one when the gateway keeps its connection, as HTTP keep-alive does).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable

# Longer than a USSD session lasts at the gateway (a few minutes at most: the phone's screen times out).
DUREE = 300.0
TAILLE = 10_000

Cle = tuple[str, str, uuid.UUID]


class PinsVerifies:
    def __init__(self, duree: float = DUREE, taille: int = TAILLE,
                 horloge: Callable[[], float] = time.monotonic) -> None:
        self._secret = secrets.token_bytes(32)
        self._entrees: OrderedDict[Cle, tuple[bytes, float]] = OrderedDict()
        self.duree, self.taille, self.horloge = duree, taille, horloge

    def _empreinte(self, pin_hash: str, saisi: str) -> bytes:
        return hmac.new(self._secret, f"{pin_hash}\0{saisi}".encode(), hashlib.sha256).digest()

    def deja_verifie(self, cle: Cle, pin_hash: str, saisi: str) -> bool:
        entree = self._entrees.get(cle)
        if entree is None:
            return False
        if entree[1] <= self.horloge():
            del self._entrees[cle]
            return False
        return hmac.compare_digest(entree[0], self._empreinte(pin_hash, saisi))

    def retenir(self, cle: Cle, pin_hash: str, saisi: str) -> None:
        self._entrees[cle] = (self._empreinte(pin_hash, saisi), self.horloge() + self.duree)
        self._entrees.move_to_end(cle)
        while len(self._entrees) > self.taille:
            self._entrees.popitem(last=False)


PINS_VERIFIES = PinsVerifies()
