"""SMS gateways the outbox worker sends through (``UNIONFLOW_SMS_PASSERELLE``): the generic JSON gateway,
Africa's Talking and Orange's SMS API, each speaking its documented protocol (docs/ussd-sms.md). ``send`` returns
the gateway's id of the message, which its delivery reports name (recorded on the outbox row)."""

from __future__ import annotations

import functools
import ssl
import time
from typing import Any
from urllib.parse import quote

import httpx

from unionflow.config import Settings
from unionflow.models import Notification
from unionflow.notifications.gsm import gsm7

TIMEOUT = 10.0
# Africa's Talking per-recipient codes: 100 Processed, 101 Sent, 102 Queued; among the others, these will not
# get better by retrying (invalid number, blacklisted, cannot route, rejected).
AT_ACCEPTES = frozenset({100, 101, 102})
AT_DEFINITIFS = frozenset({403, 404, 406, 407, 409})


class DeliveryError(Exception):
    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


def _refus(nom: str, response: httpx.Response) -> DeliveryError:
    # 4xx other than 429 (and 401, a token to renew): the gateway refuses this message; retrying will not help.
    permanent = 400 <= response.status_code < 500 and response.status_code not in (401, 429)
    return DeliveryError(f"{nom}: HTTP {response.status_code} {response.text[:200]}", permanent=permanent)


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's default TLS context, built once: building it loads the CA bundle, 25 ms of CPU for every SMS (the
    SMS bench's delivery worker fell behind its rate on a loaded machine)."""
    return httpx.create_ssl_context()


async def _post(nom: str, url: str, **kwargs: Any) -> httpx.Response:
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, verify=_tls()) as http:
            return await http.post(url, **kwargs)
    except httpx.HTTPError as exc:
        raise DeliveryError(f"{nom} injoignable: {type(exc).__name__}: {exc}") from exc


def _json(nom: str, response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        raise DeliveryError(f"{nom}: réponse illisible {response.text[:200]}") from exc
    return body if isinstance(body, dict) else {}


class SmsGatewayTransport:
    """Generic HTTP gateway: POST JSON {"to", "message", "reference", "sender"}; any 2xx means accepted."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def send(self, row: Notification) -> str | None:
        s = self.settings
        if not s.sms_gateway_url:
            raise DeliveryError("Aucune passerelle SMS configurée (UNIONFLOW_SMS_GATEWAY_URL)")
        headers = {"Authorization": f"Bearer {s.sms_gateway_token}"} if s.sms_gateway_token else {}
        payload = {"to": row.adresse, "message": gsm7(row.corps), "reference": str(row.id),
                   "sender": s.sms_gateway_sender}
        response = await _post("Passerelle SMS", s.sms_gateway_url, json=payload, headers=headers)
        if not response.is_success:
            raise _refus("Passerelle SMS", response)
        # Our own id is the reference the generic gateway's reports carry.
        return str(row.id)


class AfricasTalkingTransport:
    """POST form (username, to, message, from; linkId and bulkSMSMode=0 for the answer to a premium short-code
    message) to /version1/messaging with the ``apiKey`` header; the answer lists each recipient with its status
    code and ``messageId``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def send(self, row: Notification) -> str | None:
        s = self.settings
        if not s.sms_africastalking_username or not s.sms_africastalking_api_key:
            raise DeliveryError("Africa's Talking non configuré (UNIONFLOW_SMS_AFRICASTALKING_USERNAME, _API_KEY)")
        form = {"username": s.sms_africastalking_username, "to": row.adresse or "", "message": gsm7(row.corps)}
        if s.sms_gateway_sender:
            form["from"] = s.sms_gateway_sender
        if row.lien_premium:
            # The answer to a premium (on-demand) short-code message: its linkId, and billed to the subscriber
            # as the premium service says (bulkSMSMode 0; the default 1, the sender pays, fails for premium).
            form["linkId"] = row.lien_premium
            form["bulkSMSMode"] = "0"
        response = await _post("Africa's Talking", s.sms_africastalking_url, data=form,
                               headers={"apiKey": s.sms_africastalking_api_key, "Accept": "application/json"})
        if not response.is_success:
            raise _refus("Africa's Talking", response)
        destinataires = _json("Africa's Talking", response).get("SMSMessageData", {}).get("Recipients") or []
        if not destinataires:
            raise DeliveryError(f"Africa's Talking: aucun destinataire accepté {response.text[:200]}")
        premier = destinataires[0]
        code = int(premier.get("statusCode", 0))
        if code not in AT_ACCEPTES:
            raise DeliveryError(f"Africa's Talking: {code} {premier.get('status')}", permanent=code in AT_DEFINITIFS)
        return str(premier.get("messageId")) if premier.get("messageId") else None


class OrangeTransport:
    """OAuth 2.0 client credentials at /oauth/v3/token (the token is kept until it expires), then POST JSON
    ``outboundSMSMessageRequest`` to /smsmessaging/v1/outbound/tel%3A%2B{sender}/requests; the request's id is
    the last segment of the answered ``resourceURL``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._jeton: tuple[str, float] | None = None

    async def _token(self) -> str:
        if self._jeton is not None and self._jeton[1] > time.monotonic():
            return self._jeton[0]
        s = self.settings
        assert s.sms_orange_client_id and s.sms_orange_client_secret
        response = await _post("Orange (jeton)", f"{s.sms_orange_url.rstrip('/')}/oauth/v3/token",
                               data={"grant_type": "client_credentials"},
                               auth=(s.sms_orange_client_id, s.sms_orange_client_secret),
                               headers={"Accept": "application/json"})
        if not response.is_success:
            # Bad credentials are the operator's to fix; the message itself is fine: retried later.
            raise DeliveryError(f"Orange (jeton): HTTP {response.status_code} {response.text[:200]}")
        body = _json("Orange (jeton)", response)
        # A minute of margin: a token about to expire is renewed before it is refused.
        self._jeton = (str(body["access_token"]), time.monotonic() + int(body.get("expires_in", 3600)) - 60)
        return self._jeton[0]

    async def send(self, row: Notification) -> str | None:
        s = self.settings
        if not s.sms_orange_client_id or not s.sms_orange_client_secret or not s.sms_orange_expediteur:
            raise DeliveryError("Orange non configuré (UNIONFLOW_SMS_ORANGE_CLIENT_ID, _CLIENT_SECRET, _EXPEDITEUR)")
        expediteur = "tel:+" + s.sms_orange_expediteur.lstrip("+")
        requete: dict[str, Any] = {"address": "tel:+" + (row.adresse or "").lstrip("+"),
                                   "senderAddress": expediteur,
                                   "outboundSMSTextMessage": {"message": gsm7(row.corps)}}
        if s.sms_orange_nom_expediteur:
            requete["senderName"] = s.sms_orange_nom_expediteur
        url = f"{s.sms_orange_url.rstrip('/')}/smsmessaging/v1/outbound/{quote(expediteur, safe='')}/requests"
        for essai in range(2):
            response = await _post("Orange", url, json={"outboundSMSMessageRequest": requete},
                                   headers={"Authorization": f"Bearer {await self._token()}"})
            if response.status_code == 401 and essai == 0:
                self._jeton = None  # revoked or expired early: one new token, once
                continue
            break
        if not response.is_success:
            raise _refus("Orange", response)
        ressource = str(_json("Orange", response).get("outboundSMSMessageRequest", {}).get("resourceURL") or "")
        return ressource.rstrip("/").rsplit("/", 1)[-1] or None


def transport_sms(settings: Settings) -> SmsGatewayTransport | AfricasTalkingTransport | OrangeTransport:
    """The gateway this deployment sends through (``UNIONFLOW_SMS_PASSERELLE``)."""
    if settings.sms_passerelle == "africastalking":
        return AfricasTalkingTransport(settings)
    if settings.sms_passerelle == "orange":
        return OrangeTransport(settings)
    return SmsGatewayTransport(settings)
