"""Process logging: one structured line per record (JSON, or plain text on a terminal), the request id of the
request being served on every line, secrets masked before any handler writes, and the stored system logs
(core/journal.py) fed from the same records."""

from __future__ import annotations

import logging
import re
import sys
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

import orjson

from unionflow.config import Settings
from unionflow.core.redaction import Redactor

REQUEST_ID_HEADER = "X-Request-ID"
request_id_var: ContextVar[str | None] = ContextVar("unionflow_request_id", default=None)

# A client-supplied id is kept only if it is short and harmless in a log line, a header and a database column.
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=/-]{0,127}")

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "request_id", "taskName"}


def accept_request_id(candidate: str | None) -> str:
    if candidate and _REQUEST_ID.fullmatch(candidate):
        return candidate
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    return request_id_var.get()


def structured_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The ``extra={...}`` members of a record (method, route, status, durationMs, job, ...)."""
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}


class ContextFilter(logging.Filter):
    """Stamps the request id and masks secrets once, before any handler formats or stores the record."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_unionflow_done", False):
            return True
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id_var.get()
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not match the format: keep the raw parts, never fail the caller
            message = f"{record.msg} {record.args}"
        record.msg = self.redactor.text(message)
        record.args = None
        for key, value in structured_fields(record).items():
            setattr(record, key, self.redactor.value(value, key))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.text(record.exc_text)
        record.exc_info = None
        record._unionflow_done = True
        return True


def _time(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": _time(record), "level": record.levelname, "logger": record.name,
                                "message": record.getMessage(), "requestId": getattr(record, "request_id", None),
                                "pid": record.process}
        line.update(structured_fields(record))
        if record.exc_text:
            line["exception"] = record.exc_text
        return orjson.dumps(line, default=str).decode()


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", None)
        extras = " ".join(f"{k}={v}" for k, v in structured_fields(record).items())
        line = f"{_time(record)} {record.levelname:<7} {record.name}{f' [{rid}]' if rid else ''} " \
               f"{record.getMessage()}{f'  {extras}' if extras else ''}"
        return f"{line}\n{record.exc_text}" if record.exc_text else line


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is now (test capture replaces it), not the one seen at start-up."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        return None


def secrets_of(settings: Settings) -> list[str | None]:
    return [settings.wave_api_key, settings.wave_webhook_secret, settings.keycloak_admin_client_secret,
            settings.smtp_password, settings.s3_secret_key, settings.sms_gateway_token, settings.metrics_token,
            settings.bootstrap_admin_password, settings.ussd_pin_cle, *settings.ussd_pin_cles_anciennes.values()]


def wants_json(settings: Settings) -> bool:
    if settings.log_format in ("json", "text"):
        return settings.log_format == "json"
    return not sys.stderr.isatty()


def configure_logging(settings: Settings, store: Callable[[Settings], logging.Handler] | None = None) -> None:
    """Idempotent per process: every worker calls it from the application factory. ``store`` builds the handler
    keeping the lines in the database (``core.journal.handler``), passed by the entry points so that this module
    stays below the journal, which formats its rows with ``structured_fields``."""
    root = logging.getLogger()
    configured: ContextFilter | None = getattr(root, "_unionflow_context", None)
    if configured is not None:
        # Another application in this process (tests, tools): its secrets are masked too.
        configured.redactor.add(secrets_of(settings))
        return
    context = ContextFilter(Redactor(secrets_of(settings)))
    console = _StderrHandler()
    console.setFormatter(JsonFormatter() if wants_json(settings) else TextFormatter())
    console.addFilter(context)
    root.addHandler(console)
    if store is not None and settings.log_retention_days > 0:
        stored = store(settings)
        stored.addFilter(context)
        root.addHandler(stored)
    root.setLevel(settings.log_level.upper())
    # uvicorn's own lines go through the same handlers; its access line is replaced by ours (core/middleware.py).
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # fontTools reports each step of subsetting the PDF fonts at INFO: some 80 lines per PDF (statements, receipts),
    # each written to stderr and kept in the database journal with the request's id. Its warnings still come through.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    if not settings.access_log:
        logging.getLogger("unionflow.requests").setLevel(logging.WARNING)
    root._unionflow_context = context  # type: ignore[attr-defined]
