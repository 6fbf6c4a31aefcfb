"""A real SMTP server (aiosmtpd) and a real HTTP SMS gateway on loopback."""

from __future__ import annotations

import email
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Mailbox:
    messages: list[Message] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        with self.lock:
            self.messages.append(email.message_from_bytes(raw))
            self.recipients.append(list(envelope.rcpt_tos))
        return "250 Message accepted for delivery"

    def ids(self) -> list[str]:
        with self.lock:
            return [str(m["X-UnionFlow-Notification"]) for m in self.messages]


class _Authenticator:
    def __init__(self, mailbox: Mailbox, user: str, password: str) -> None:
        self.mailbox, self.user, self.password = mailbox, user, password

    def __call__(self, server: Any, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login.decode() == self.user and \
            data.password.decode() == self.password
        if ok:
            self.mailbox.logins.append(self.user)
        return AuthResult(success=ok, handled=False)


@contextmanager
def smtp_server(user: str | None = None, password: str | None = None) -> Iterator[tuple[Mailbox, int]]:
    mailbox = Mailbox()
    port = free_port()
    kwargs: dict[str, Any] = {}
    if user:
        kwargs = {"authenticator": _Authenticator(mailbox, user, password or ""), "auth_require_tls": False,
                  "auth_required": True}
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, **kwargs)
    controller.start()
    try:
        yield mailbox, port
    finally:
        controller.stop()


@contextmanager
def sms_gateway(status: int = 202) -> Iterator[tuple[list[dict[str, Any]], str]]:
    """A JSON SMS gateway speaking the documented protocol; records requests with their Authorization header."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            received.append({"body": body, "authorization": self.headers.get("Authorization")})
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"id": "sms-1"}')

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received, f"http://127.0.0.1:{server.server_address[1]}/sms"
    finally:
        server.shutdown()
        server.server_close()
