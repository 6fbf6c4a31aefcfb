"""Structured request logs and the request id: accepted or generated, echoed, and found again in the log line,
the audit entry and the error body."""

from __future__ import annotations

import json
import logging

import httpx
from sqlalchemy import select

from unionflow.app import create_app
from unionflow.core.logs import ContextFilter, JsonFormatter, TextFormatter, request_id_var, wants_json
from unionflow.core.redaction import Redactor
from unionflow.models import AuditLog


def _request_lines(caplog, request_id: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "unionflow.requests" and r.request_id == request_id]


async def test_request_id_is_accepted_echoed_or_generated(client):
    given = await client.get("/health/live", headers={"X-Request-ID": "lb-7f3a.42:abc"})
    assert given.headers["X-Request-ID"] == "lb-7f3a.42:abc"
    generated = await client.get("/health/live")
    other = await client.get("/health/live")
    assert len(generated.headers["X-Request-ID"]) == 32
    assert generated.headers["X-Request-ID"] != other.headers["X-Request-ID"]
    # Too long, or characters that could forge log lines or headers: replaced, never echoed.
    for bad in ("x" * 129, "abc def", "a\u00e9b", "-starts-with-dash", "{json}"):
        response = await client.get("/health/live", headers={"X-Request-ID": bad.encode("latin-1")})
        assert response.headers["X-Request-ID"] != bad and len(response.headers["X-Request-ID"]) == 32


async def test_one_request_id_in_the_log_line_the_audit_entry_and_the_error_body(client, factory, db, caplog):
    caplog.set_level(logging.INFO)
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], organisation=org, org_roles=["MEMBRE"])
    changed = await client.put("/api/alerts/config", json={"seuilEchecsConnexionHeure": 7},
                               headers={**admin.in_org(org.id), "X-Request-ID": "req-audit-1"})
    assert changed.status_code == 200 and changed.headers["X-Request-ID"] == "req-audit-1"
    entry = (await db.execute(select(AuditLog).where(AuditLog.request_id == "req-audit-1"))).scalar_one()
    assert entry.module and entry.utilisateur == admin.user.email
    listed = await client.get("/api/audit", headers=admin.headers)
    assert any(e["requestId"] == "req-audit-1" for e in listed.json()["content"])

    [line] = _request_lines(caplog, "req-audit-1")
    assert line.method == "PUT" and line.route == "/api/alerts/config" and line.status == 200
    assert line.userSub == str(admin.user.id) and line.organisationId == str(org.id)
    assert line.durationMs >= 0

    missing = await client.get("/api/membres/00000000-0000-0000-0000-000000000000",
                               headers={**admin.headers, "X-Request-ID": "req-404"})
    assert missing.status_code == 404
    assert missing.json()["requestId"] == "req-404" and missing.headers["X-Request-ID"] == "req-404"
    [line] = _request_lines(caplog, "req-404")
    assert line.route == "/api/membres/{id}" and line.status == 404
    invalid = await client.get("/api/logs?page=-1", headers={**admin.headers, "X-Request-ID": "req-400"})
    assert invalid.status_code == 400 and invalid.json()["requestId"] == "req-400"


async def test_unmatched_paths_share_one_route_label(client, caplog):
    caplog.set_level(logging.INFO)
    await client.get("/wp-admin/setup.php", headers={"X-Request-ID": "scan-1"})
    [line] = _request_lines(caplog, "scan-1")
    assert line.route == "<non-routée>" and line.status == 404


async def test_unexpected_error_body_and_log_carry_the_request_id(settings, caplog):
    caplog.set_level(logging.INFO)
    app = create_app(settings)

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("panne inattendue")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            response = await http.get("/boom", headers={"X-Request-ID": "req-500"})
    finally:
        await app.state.engine.dispose()
    assert response.status_code == 500
    body = response.json()
    assert body["requestId"] == "req-500" and response.headers["X-Request-ID"] == "req-500"
    assert "Traceback" not in response.text and "panne" not in response.text
    errors = [r for r in caplog.records if r.name == "unionflow.errors"]
    assert errors and errors[-1].request_id == "req-500"
    [line] = _request_lines(caplog, "req-500")
    assert line.status == 500 and line.route == "/boom"


def _record(message: str, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("unionflow.test", logging.WARNING, __file__, 1, message, None, None)
    record.__dict__.update(extra)
    return record


def test_json_line_has_the_structured_fields():
    token = request_id_var.set("req-json")
    try:
        record = _record("GET /api/x 200", method="GET", route="/api/x", status=200, durationMs=1.5,
                         userSub="u-1", organisationId=None)
        ContextFilter(Redactor()).filter(record)
    finally:
        request_id_var.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "WARNING" and line["logger"] == "unionflow.test" and line["requestId"] == "req-json"
    assert line["time"].endswith("+00:00") and line["message"] == "GET /api/x 200"
    assert (line["method"], line["route"], line["status"], line["durationMs"], line["userSub"]) == \
        ("GET", "/api/x", 200, 1.5, "u-1")
    text = TextFormatter().format(record)
    assert "[req-json]" in text and "route=/api/x" in text and not text.startswith("{")


class _Terminal:
    def isatty(self) -> bool:
        return True


def test_plain_text_on_a_terminal_json_otherwise_or_by_setting(settings, monkeypatch):
    assert wants_json(settings.model_copy(update={"log_format": "auto"}))  # pytest's captured stderr
    assert wants_json(settings.model_copy(update={"log_format": "json"}))
    monkeypatch.setattr("sys.stderr", _Terminal())
    assert not wants_json(settings.model_copy(update={"log_format": "auto"}))
    assert wants_json(settings.model_copy(update={"log_format": "json"}))
    assert not wants_json(settings.model_copy(update={"log_format": "text"}))
