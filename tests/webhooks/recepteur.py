"""A webhook receiver on loopback that checks UnionFlow's signature the way a partner system would."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOLERANCE_SECONDS = 300


@dataclass
class Receiver:
    url: str
    secret: str | None = None
    # Status codes to answer, in order; once exhausted, the last one is repeated.
    codes: list[int] = field(default_factory=lambda: [200])
    received: list[dict[str, Any]] = field(default_factory=list)
    refused_signatures: int = 0
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def verify(self, header: str, body: bytes) -> bool:
        """Receiver side of the scheme: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>."""
        parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
        if self.secret is None or "t" not in parts or "v1" not in parts:
            return False
        if abs(time.time() - int(parts["t"])) > TOLERANCE_SECONDS:
            return False
        expected = hmac.new(self.secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, parts["v1"])

    def answer(self, header: str, body: bytes, headers: dict[str, str]) -> int:
        with self.lock:
            if not self.verify(header, body):
                self.refused_signatures += 1
                return 401
            self.received.append(json.loads(body))
            self.headers.append(headers)
            return self.codes.pop(0) if len(self.codes) > 1 else self.codes[0]


@contextmanager
def receiver(codes: list[int] | None = None) -> Iterator[Receiver]:
    state = Receiver(url="", codes=list(codes or [200]))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            code = state.answer(self.headers.get("UnionFlow-Signature", ""), body, dict(self.headers.items()))
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/unionflow"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
