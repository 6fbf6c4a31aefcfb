"""Wave's protocol (https://docs.wave.com/business): the client of the Checkout, Payout and Balance APIs, and the
signature of the webhooks Wave sends us (``sign``/``verify``).

Transport failures and timeouts become 503, Wave 5xx answers 502, refusals (4xx) 502 with Wave's message:
the caller's request fails as a whole and its transaction rolls back, so nothing is marked paid or sent.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from decimal import Decimal
from typing import Any

import httpx

from unionflow.config import Settings
from unionflow.core.errors import Unauthenticated, UpstreamError, UpstreamUnavailable

log = logging.getLogger("unionflow.wave")


class WaveRefused(UpstreamError):
    """Wave answered 4xx: the request is not acceptable to Wave (expired session, unknown id, ...)."""

    def __init__(self, status: int, code: str | None, message: str) -> None:
        super().__init__(f"Wave a refusé la requête ({status} {code or ''}): {message}".strip())
        self.upstream_status = status
        self.code = code


def wave_amount(montant: Decimal) -> str:
    """Wave takes XOF amounts as integer strings (no minor unit)."""
    return str(int(montant.quantize(Decimal("1"))))


class WaveClient:
    def __init__(self, settings: Settings, api_key: str | None = None) -> None:
        self.base_url = settings.wave_api_base_url.rstrip("/")
        self.api_key = api_key or settings.wave_api_key
        self.timeout = settings.wave_timeout_seconds

    async def _call(self, method: str, path: str, json: dict[str, Any] | None = None,
                    idempotency_key: str | None = None, params: dict[str, str] | None = None) -> dict[str, Any]:
        if not self.api_key:
            raise UpstreamUnavailable("Wave n'est pas configuré (clé API absente)")
        headers = {"Authorization": f"Bearer {self.api_key}"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        try:
            async with httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout) as http:
                response = await http.request(method, path, json=json, headers=headers, params=params)
        except httpx.HTTPError as exc:
            log.warning("Wave unreachable on %s %s: %s", method, path, exc)
            raise UpstreamUnavailable("Wave est injoignable, réessayez plus tard") from exc
        if response.status_code >= 500:
            log.warning("Wave %s on %s %s", response.status_code, method, path)
            raise UpstreamError(f"Wave a répondu {response.status_code}")
        if not response.content:
            return {}  # expire and refund answer 200 without a body
        try:
            body = response.json()
        except ValueError as exc:
            raise UpstreamError("Réponse de Wave illisible") from exc
        if response.status_code >= 400:
            body = body if isinstance(body, dict) else {}
            raise WaveRefused(response.status_code, body.get("code"), str(body.get("message", "")))
        if not isinstance(body, dict):
            raise UpstreamError("Réponse de Wave inattendue")
        return body

    async def create_checkout(self, *, amount: str, currency: str, client_reference: str, success_url: str,
                              error_url: str, idempotency_key: str) -> dict[str, Any]:
        return await self._call("POST", "/v1/checkout/sessions", {
            "amount": amount, "currency": currency, "client_reference": client_reference,
            "success_url": success_url, "error_url": error_url}, idempotency_key)

    async def get_checkout(self, checkout_id: str) -> dict[str, Any]:
        return await self._call("GET", f"/v1/checkout/sessions/{checkout_id}")

    async def expire_checkout(self, checkout_id: str) -> dict[str, Any]:
        return await self._call("POST", f"/v1/checkout/sessions/{checkout_id}/expire")

    async def refund_checkout(self, checkout_id: str) -> dict[str, Any]:
        return await self._call("POST", f"/v1/checkout/sessions/{checkout_id}/refund")

    async def create_payout(self, *, currency: str, receive_amount: str, mobile: str, name: str,
                            client_reference: str, idempotency_key: str) -> dict[str, Any]:
        return await self._call("POST", "/v1/payout", {
            "currency": currency, "receive_amount": receive_amount, "mobile": mobile, "name": name,
            "client_reference": client_reference}, idempotency_key)

    async def get_payout(self, payout_id: str) -> dict[str, Any]:
        return await self._call("GET", f"/v1/payout/{payout_id}")

    async def balance(self) -> dict[str, Any]:
        return await self._call("GET", "/v1/balance")

    async def transactions(self, day: str, after: str | None = None) -> dict[str, Any]:
        """One page of the wallet's transactions of ``day`` (YYYY-MM-DD): ``{page_info: {end_cursor,
        has_next_page}, date, items}``; the next page is asked with ``after`` = the previous ``end_cursor``."""
        params = {"date": day, **({"after": after} if after else {})}
        return await self._call("GET", "/v1/transactions", params=params)


# ---- webhook signatures --------------------------------------------------------------------------------------
# Wave webhook signatures: ``Wave-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`` where each v1 is
# HMAC-SHA256(secret, "<t>" + raw body). Several v1 values appear while Wave rotates the secret.

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
