"""Wave webhook signatures: ``Wave-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`` where each v1 is
HMAC-SHA256(secret, "<t>" + raw body). Several v1 values appear while Wave rotates the secret."""

from __future__ import annotations

import hashlib
import hmac
import time

from unionflow.core.errors import Unauthenticated

TOLERANCE_SECONDS = 300


def sign(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), str(timestamp).encode() + body, hashlib.sha256).hexdigest()


def verify(secrets: list[str], header: str | None, body: bytes, now: float | None = None) -> int:
    """Returns the signed timestamp; raises 401 on a missing, unreadable, invalid or stale signature: the header is
    the request's only credential, and a credential that cannot be read authenticates nobody (as a malformed
    bearer token answers 401).
    ``secrets``: the union's secret and those of the organisations' own Wave accounts; any may have signed."""
    if not header:
        raise Unauthenticated("En-tête Wave-Signature absent")
    timestamp: int | None = None
    candidates: list[str] = []
    for part in header.split(","):
        name, sep, value = part.strip().partition("=")
        if not sep:
            raise Unauthenticated("En-tête Wave-Signature illisible")
        if name == "t":
            try:
                timestamp = int(value)
            except ValueError as exc:
                raise Unauthenticated("Horodatage Wave-Signature illisible") from exc
        elif name == "v1":
            candidates.append(value.strip().lower())
    if timestamp is None or not candidates:
        raise Unauthenticated("En-tête Wave-Signature incomplet (t et v1 requis)")
    current = time.time() if now is None else now
    if abs(current - timestamp) > TOLERANCE_SECONDS:
        raise Unauthenticated("Signature Wave expirée ou datée du futur")
    # Check every pair (no early exit) so timing does not reveal which one matched.
    matched = False
    for secret in secrets:
        expected = sign(secret, timestamp, body)
        for candidate in candidates:
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise Unauthenticated("Signature Wave invalide")
    return timestamp
