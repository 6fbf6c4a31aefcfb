"""Client of the Wave Checkout and Payout APIs (https://docs.wave.com/business).

Transport failures and timeouts become 503, Wave 5xx answers 502, refusals (4xx) 502 with Wave's message:
the caller's request fails as a whole and its transaction rolls back, so nothing is marked paid or sent.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

import httpx

from unionflow.config import Settings
from unionflow.core.errors import UpstreamError, UpstreamUnavailable

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
                    idempotency_key: str | None = None) -> dict[str, Any]:
        if not self.api_key:
            raise UpstreamUnavailable("Wave n'est pas configuré (clé API absente)")
        headers = {"Authorization": f"Bearer {self.api_key}"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        try:
            async with httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout) as http:
                response = await http.request(method, path, json=json, headers=headers)
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
