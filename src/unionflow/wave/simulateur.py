"""Wave simulator: a local server speaking the Wave Checkout, Payout and Balance APIs our client uses, state in
memory, bearer key checked. One implementation serves the tests (``serving()`` in a background thread), ``make
fuzz`` and ``unionflow demo`` (which also lets a person pay or fail a checkout from a page, and delivers the signed
``checkout.session.completed`` webhook to the app). Documented in docs/paiements-wave.md."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from unionflow.wave.client import sign

API_KEY = "wave-test-key"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class SimulateurWave:
    api_key: str = API_KEY
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    payouts: dict[str, dict[str, Any]] = field(default_factory=dict)
    idempotency: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (body hash, object id)
    balance: int = 1_000_000
    fail_next: list[int] = field(default_factory=list)  # statuses to answer to the next requests
    failing_mobiles: set[str] = field(default_factory=set)
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    # Balance & Reconciliation API: the fee Wave keeps (percent of a payment received, flat on a payout), lines
    # Wave has that we do not (``extra_transactions``), transactions we have that Wave lacks (``hidden``), the
    # page size of GET /v1/transactions and the balance before the first transaction.
    fee_percent: int = 0
    payout_fee: int = 0
    extra_transactions: list[dict[str, Any]] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)
    page_size: int = 50
    opening: int = 1_000_000
    # Demo only: where the payment page lives and where a completed or failed checkout is announced (signed with
    # the secret the app is configured with). Unset in tests, which post their own webhooks.
    launch_base: str = "https://pay.wave.com"
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_transport: httpx.AsyncBaseTransport | None = None  # a test's in-process app; None: real HTTP

    def reset(self) -> None:
        with self.lock:
            self.sessions.clear()
            self.payouts.clear()
            self.idempotency.clear()
            self.fail_next.clear()
            self.failing_mobiles.clear()
            self.requests.clear()
            self.balance = 1_000_000
            self.fee_percent = self.payout_fee = 0
            self.extra_transactions.clear()
            self.hidden.clear()
            self.page_size = 50
            self.opening = 1_000_000

    # -- test controls --
    def complete(self, checkout_id: str, *, amount: str | None = None) -> dict[str, Any]:
        """The customer paid in the Wave app."""
        with self.lock:
            s = self.sessions[checkout_id]
            s.update(checkout_status="complete", payment_status="succeeded",
                     transaction_id=f"T_{uuid.uuid4().hex[:12].upper()}", when_completed=_now())
            if amount is not None:
                s["amount"] = amount
            s["fee"] = str(int(s["amount"]) * self.fee_percent // 100)
            self.balance += int(s["amount"]) - int(s["fee"])
            return dict(s)

    def fail(self, checkout_id: str) -> dict[str, Any]:
        with self.lock:
            s = self.sessions[checkout_id]
            s.update(payment_status="failed")
            return dict(s)

    # -- protocol --
    def _error(self, status: int, code: str, message: str) -> JSONResponse:
        return JSONResponse({"code": code, "message": message}, status_code=status)

    def _guard(self, request: Request) -> Response | None:
        self.requests.append((request.method, request.url.path, dict(request.headers)))
        if request.headers.get("authorization") != f"Bearer {self.api_key}":
            return self._error(401, "no-matching-api-key", "Invalid API key")
        if self.fail_next:
            return self._error(self.fail_next.pop(0), "internal-server-error", "Simulated failure")
        return None

    async def create_session(self, request: Request) -> Response:
        if (denied := self._guard(request)) is not None:
            return denied
        raw = await request.body()
        body = json.loads(raw)
        key = request.headers.get("idempotency-key")
        with self.lock:
            if key and key in self.idempotency:
                digest, existing = self.idempotency[key]
                if digest != raw.decode():
                    return self._error(409, "idempotency-mismatch", "Idempotency key reused")
                return JSONResponse(self.sessions[existing])
            amount = str(body.get("amount", ""))
            if not amount.isdigit() or int(amount) <= 0 or body.get("currency") != "XOF":
                return self._error(400, "request-validation-error", "Invalid amount or currency")
            sid = f"cos-{uuid.uuid4().hex[:16]}"
            session = {
                "id": sid, "amount": amount, "checkout_status": "open", "client_reference":
                body.get("client_reference"), "currency": "XOF", "error_url": body.get("error_url"),
                "last_payment_error": None, "business_name": "UnionFlow Test", "payment_status": "processing",
                "success_url": body.get("success_url"), "wave_launch_url": f"{self.launch_base}/c/{sid}",
                "when_created": _now(), "when_expires":
                (datetime.now(UTC) + timedelta(minutes=30)).isoformat().replace("+00:00", "Z"),
                "transaction_id": None, "when_completed": None,
            }
            self.sessions[sid] = session
            if key:
                self.idempotency[key] = (raw.decode(), sid)
            return JSONResponse(session)

    def _session(self, request: Request) -> tuple[dict[str, Any] | None, Response | None]:
        """The checkout session named by the path, or the error Wave answers (auth first, then 404)."""
        if (denied := self._guard(request)) is not None:
            return None, denied
        session = self.sessions.get(request.path_params["id"])
        if session is None:
            return None, self._error(404, "checkout-session-not-found", "Not found")
        return session, None

    async def get_session(self, request: Request) -> Response:
        session, error = self._session(request)
        return error or JSONResponse(session)

    async def expire_session(self, request: Request) -> Response:
        with self.lock:
            session, error = self._session(request)
            if session is None:
                return error or Response(status_code=500)
            if session["checkout_status"] != "open":
                return self._error(409, "checkout-session-not-open", "Session is not open")
            session["checkout_status"] = "expired"
        return Response(status_code=200)

    async def refund_session(self, request: Request) -> Response:
        with self.lock:
            session, error = self._session(request)
            if session is None:
                return error or Response(status_code=500)
            if session["payment_status"] != "succeeded":
                return self._error(409, "checkout-refund-failed", "Nothing to refund")
            session["payment_status"] = "refunded"
            self.balance -= int(session["amount"])
        return Response(status_code=200)

    async def create_payout(self, request: Request) -> Response:
        if (denied := self._guard(request)) is not None:
            return denied
        key = request.headers.get("idempotency-key")
        if not key:
            return self._error(400, "missing-idempotency-key", "Idempotency-Key required")
        raw = await request.body()
        body = json.loads(raw)
        with self.lock:
            if key in self.idempotency:
                digest, existing = self.idempotency[key]
                if digest != raw.decode():
                    return self._error(409, "idempotency-mismatch", "Idempotency key reused")
                return JSONResponse(self.payouts[existing])
            amount = int(body["receive_amount"])
            failed = body["mobile"] in self.failing_mobiles or amount > self.balance
            pid = f"pt-{uuid.uuid4().hex[:16]}"
            payout = {
                "id": pid, "currency": body["currency"], "receive_amount": body["receive_amount"], "fee": "0",
                "mobile": body["mobile"], "name": body.get("name"), "client_reference": body.get("client_reference"),
                "status": "failed" if failed else "succeeded", "timestamp": _now(),
                "payout_error": {"error_code": "recipient-account-blocked", "error_message": "Blocked"}
                if failed else None,
            }
            if not failed:
                payout["fee"] = str(self.payout_fee)
                self.balance -= amount + self.payout_fee
            self.payouts[pid] = payout
            self.idempotency[key] = (raw.decode(), pid)
            return JSONResponse(payout)

    async def get_payout(self, request: Request) -> Response:
        if (denied := self._guard(request)) is not None:
            return denied
        payout = self.payouts.get(request.path_params["id"])
        if payout is None:
            return self._error(404, "payout-not-found", "Not found")
        return JSONResponse(payout)

    async def get_balance(self, request: Request) -> Response:
        if (denied := self._guard(request)) is not None:
            return denied
        return JSONResponse({"amount": str(self.balance), "currency": "XOF"})

    def _transactions(self) -> list[dict[str, Any]]:
        """Every wallet transaction Wave knows, oldest first, with the running balance."""
        items = [{"timestamp": s["when_completed"], "transaction_id": s["transaction_id"],
                  "transaction_type": "api_checkout", "amount": str(int(s["amount"]) - int(s.get("fee") or 0)),
                  "fee": str(s.get("fee") or 0), "currency": "XOF", "is_reversal": False,
                  "client_reference": s["client_reference"], "checkout_api_session_id": s["id"],
                  "counterparty_mobile": "+221770000000"}
                 for s in self.sessions.values() if s["transaction_id"]]
        items += [{"timestamp": p["timestamp"], "transaction_id": f"T_{p['id'][3:15].upper()}",
                   "transaction_type": "api_payout", "amount": str(-int(p["receive_amount"]) - int(p["fee"])),
                   "fee": p["fee"], "currency": "XOF", "client_reference": p["client_reference"],
                   "counterparty_mobile": p["mobile"], "counterparty_name": p["name"]}
                  for p in self.payouts.values() if p["status"] == "succeeded"]
        items += [dict(t) for t in self.extra_transactions]
        items = sorted((t for t in items if t["transaction_id"] not in self.hidden), key=lambda t: t["timestamp"])
        running = self.opening
        for item in items:
            running += int(item["amount"])
            item["balance"] = str(running)
        return items

    async def list_transactions(self, request: Request) -> Response:
        if (denied := self._guard(request)) is not None:
            return denied
        day = request.query_params.get("date") or _now()[:10]
        with self.lock:
            items = [t for t in self._transactions() if t["timestamp"][:10] == day]
        start = int(request.query_params.get("after") or 0)
        page = items[start:start + self.page_size]
        more = start + self.page_size < len(items)
        return JSONResponse({"page_info": {"start_cursor": str(start) if start else None,
                                           "end_cursor": str(start + len(page)), "has_next_page": more},
                             "date": day, "items": page})

    # -- demo controls: the page a payer sees, and the buttons that settle the checkout --
    async def page(self, request: Request) -> Response:
        session = self.sessions.get(request.path_params["id"])
        if session is None:
            return HTMLResponse("<p>Session de paiement inconnue.</p>", status_code=404)
        action = f"/c/{session['id']}"
        return HTMLResponse(
            "<!doctype html><html lang=fr><meta charset=utf-8><title>Simulateur Wave</title>"
            f"<h1>Simulateur Wave</h1><p>{session['amount']} FCFA, état: {session['payment_status']}</p>"
            f"<form method=post action='{action}/payer'><button>Payer</button></form>"
            f"<form method=post action='{action}/echouer'><button>Faire échouer</button></form>")

    async def settle(self, request: Request) -> Response:
        """POST /c/{id}/payer or /c/{id}/echouer: settle the checkout, then announce it to the app."""
        sid, outcome = request.path_params["id"], request.path_params["issue"]
        if sid not in self.sessions or outcome not in ("payer", "echouer"):
            return HTMLResponse("<p>Session de paiement inconnue.</p>", status_code=404)
        if outcome == "payer":
            settled, kind = self.complete(sid), "checkout.session.completed"
        else:
            settled, kind = self.fail(sid), "checkout.session.payment_failed"
        delivered = await self.deliver(completed_event(settled, event_type=kind))
        back = settled["success_url" if outcome == "payer" else "error_url"] or "/"
        return HTMLResponse(f"<p>Webhook {kind}: {delivered}.</p><p><a href='{back}'>Retour</a></p>")

    async def deliver(self, event: dict[str, Any]) -> str:
        """Post the signed webhook to the configured target; the answer's status, or why nothing was sent."""
        if not (self.webhook_url and self.webhook_secret):
            return "aucune cible configurée"
        body, headers = signed_webhook(self.webhook_secret, event)
        async with httpx.AsyncClient(transport=self.webhook_transport, timeout=10) as client:
            answer = await client.post(self.webhook_url, content=body, headers=headers)
        return f"HTTP {answer.status_code}"

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/c/{id}", self.page, methods=["GET"]),
            Route("/c/{id}/{issue}", self.settle, methods=["POST"]),
            Route("/v1/checkout/sessions", self.create_session, methods=["POST"]),
            Route("/v1/checkout/sessions/{id}", self.get_session, methods=["GET"]),
            Route("/v1/checkout/sessions/{id}/expire", self.expire_session, methods=["POST"]),
            Route("/v1/checkout/sessions/{id}/refund", self.refund_session, methods=["POST"]),
            Route("/v1/payout", self.create_payout, methods=["POST"]),
            Route("/v1/payout/{id}", self.get_payout, methods=["GET"]),
            Route("/v1/balance", self.get_balance, methods=["GET"]),
            Route("/v1/transactions", self.list_transactions, methods=["GET"]),
        ])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def signed_webhook(secret: str, event: dict[str, Any], *, timestamp: int | None = None,
                   tamper: bool = False) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(event).encode()
    t = int(time.time()) if timestamp is None else timestamp
    signature = sign(secret, t, body)
    if tamper:
        body = body.replace(b'"amount": "', b'"amount": "1')
    return body, {"Wave-Signature": f"t={t},v1={signature}", "Content-Type": "application/json"}


def completed_event(session: dict[str, Any], event_id: str | None = None,
                    event_type: str = "checkout.session.completed") -> dict[str, Any]:
    return {"id": event_id or f"EV_{uuid.uuid4().hex[:12]}", "type": event_type, "data": dict(session)}


@contextmanager
def serving(fake: SimulateurWave, port: int | None = None) -> Iterator[SimulateurWave]:
    """Serve ``fake`` on loopback (a free port unless given) in a background thread (tests, fuzz, demo)."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(fake.app(), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("Wave simulator did not start")
        time.sleep(0.02)
    fake.url = f"http://127.0.0.1:{port}"
    try:
        yield fake
    finally:
        server.should_exit = True
        thread.join(timeout=5)
