"""Loopback SMS gateways speaking their documented protocols (Africa's Talking, Orange), and the inbound side."""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx

SECRET = "sms-test-gateway-secret"
ENTRANT = "/api/sms/entrant"
ACCUSES = "/api/sms/accuses"


@contextmanager
def _serveur(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Base(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def log_message(self, *args: Any) -> None:
        return


@dataclass
class AfricasTalking:
    """POST /version1/messaging, form username/to/message/from, header apiKey; answers SMSMessageData."""

    api_key: str = "at-key"
    username: str = "sandbox"
    recus: list[dict[str, str]] = field(default_factory=list)
    status_code: int = 101  # per recipient: 101 Success; 403 InvalidPhoneNumber; 405 InsufficientBalance
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        passerelle = self

        class Handler(_Base):
            def do_POST(self) -> None:
                form = {k: v[0] for k, v in parse_qs(self._body().decode()).items()}
                if self.path != "/version1/messaging" or self.headers.get("apiKey") != passerelle.api_key \
                        or form.get("username") != passerelle.username:
                    self._answer(401, {"error": "The supplied authentication is invalid"})
                    return
                with passerelle.lock:
                    passerelle.recus.append(form)
                    numero = len(passerelle.recus)
                statut = {101: "Success", 403: "InvalidPhoneNumber", 405: "InsufficientBalance"}
                self._answer(201, {"SMSMessageData": {"Message": "Sent to 1/1 Total Cost: XOF 20", "Recipients": [
                    {"statusCode": passerelle.status_code, "number": form.get("to"),
                     "status": statut[passerelle.status_code], "cost": "XOF 20",
                     "messageId": f"ATXid_{numero:04d}"}]}})

        return Handler


@contextmanager
def africastalking(**values: Any) -> Iterator[tuple[AfricasTalking, str]]:
    passerelle = AfricasTalking(**values)
    with _serveur(passerelle.handler()) as base:
        yield passerelle, f"{base}/version1/messaging"


@dataclass
class Orange:
    """POST /oauth/v3/token (Basic client_id:client_secret, grant_type=client_credentials), then
    POST /smsmessaging/v1/outbound/tel%3A%2B{sender}/requests with the bearer token; answers resourceURL."""

    client_id: str = "orange-id"
    client_secret: str = "orange-secret"
    jetons: list[str] = field(default_factory=list)
    recus: list[dict[str, Any]] = field(default_factory=list)
    chemins: list[str] = field(default_factory=list)
    revoquer: bool = False  # the next send with the current token answers 401 once
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        passerelle = self

        class Handler(_Base):
            def do_POST(self) -> None:
                body = self._body()
                if self.path == "/oauth/v3/token":
                    attendu = base64.b64encode(f"{passerelle.client_id}:{passerelle.client_secret}".encode())
                    if self.headers.get("Authorization") != f"Basic {attendu.decode()}" \
                            or parse_qs(body.decode()).get("grant_type") != ["client_credentials"]:
                        self._answer(401, {"error": "invalid_client"})
                        return
                    with passerelle.lock:
                        passerelle.jetons.append(f"jeton-{len(passerelle.jetons) + 1}")
                        jeton = passerelle.jetons[-1]
                    self._answer(200, {"token_type": "Bearer", "access_token": jeton, "expires_in": "3600"})
                    return
                jeton = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                with passerelle.lock:
                    if passerelle.revoquer or jeton not in passerelle.jetons:
                        passerelle.revoquer = False
                        self._answer(401, {"code": 42, "message": "Expired credentials"})
                        return
                    passerelle.chemins.append(self.path)
                    requete = json.loads(body)["outboundSMSMessageRequest"]
                    passerelle.recus.append(requete)
                    numero = len(passerelle.recus)
                expediteur = unquote(self.path.split("/")[4])
                requete["resourceURL"] = (f"https://api.orange.com/smsmessaging/v1/outbound/"
                                          f"{self.path.split('/')[4]}/requests/orange-{numero:04d}")
                assert requete["senderAddress"] == expediteur
                self._answer(201, {"outboundSMSMessageRequest": requete})

        return Handler


@contextmanager
def orange(**values: Any) -> Iterator[tuple[Orange, str]]:
    passerelle = Orange(**values)
    with _serveur(passerelle.handler()) as base:
        yield passerelle, base


async def sms(client: httpx.AsyncClient, telephone: str, texte: str, *, ident: str | None = None,
              secret: str | None = SECRET, statut: int = 200, lien: str | None = None) -> dict[str, Any]:
    """Africa's Talking posting an inbound SMS to the webhook; ``lien``: the linkId of a message sent to a premium
    (on-demand) short code."""
    headers = {"X-SMS-Secret": secret} if secret else {}
    response = await client.post(ENTRANT, headers=headers, data={
        "from": telephone, "to": "21234", "text": texte, "date": "2026-12-03 06:00:00",
        "id": ident or f"ATInbound_{uuid.uuid4().hex}", **({"linkId": lien} if lien else {})})
    assert response.status_code == statut, response.text
    return response.json()
