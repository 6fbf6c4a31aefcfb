"""GET /api/logs: the stored system logs, written in batches off the request path, filtered, paged, purged after
the retention, never recursive, and free of secrets."""

from __future__ import annotations

import json
import logging
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from unionflow.core import journal
from unionflow.core.logs import ContextFilter, JsonFormatter, configure_logging
from unionflow.core.redaction import MASK, Redactor
from unionflow.models import JournalSysteme

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ"


async def _flush(app) -> int:
    return await app.state.journal.flush(app.state.sessionmaker)


async def _logs(client, headers, **params):
    response = await client.get("/api/logs", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_role_set_is_rs_mon_read(client, factory):
    user = await factory.actor(["USER"])
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    assert (await client.get("/api/logs")).status_code == 401
    assert (await client.get("/api/logs", headers=user.headers)).status_code == 403
    assert (await client.get("/api/logs?niveau=NOPE", headers=user.headers)).status_code == 403
    assert (await client.get("/api/logs", headers=moderator.headers)).status_code == 200


async def test_request_lines_are_stored_and_found_by_request_id(app, client, factory, db):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], organisation=org, org_roles=["MEMBRE"])
    await client.get(f"/api/organisations/{org.id}", headers={**admin.in_org(org.id), "X-Request-ID": "trace-1"})
    # Nothing reaches the database during the request: only the writer stores (in batches).
    assert (await db.execute(select(func.count()).select_from(JournalSysteme)
                             .where(JournalSysteme.request_id == "trace-1"))).scalar_one() == 0
    assert await _flush(app) >= 1
    page = await _logs(client, admin.headers, requestId="trace-1")
    [line] = page["content"]
    assert line["logger"] == "unionflow.requests" and line["niveau"] == "INFO"
    assert line["methode"] == "GET" and line["route"] == "/api/organisations/{id}" and line["statut"] == 200
    assert line["utilisateur"] == str(admin.user.id) and line["organisationId"] == str(org.id)
    assert line["dureeMs"] >= 0 and line["processus"] and line["requestId"] == "trace-1"
    assert page["totalElements"] == 1 and page["size"] == 50


async def test_filters_level_threshold_logger_prefix_time_range_and_paging(app, client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    marker = uuid.uuid4().hex
    logging.getLogger("unionflow.wave.client").warning("wave lent %s", marker)
    logging.getLogger("unionflow.wave").error("wave en panne %s", marker)
    logging.getLogger("unionflow.wavelet").error("autre composant %s", marker)
    logging.getLogger("unionflow.wave").info("wave ok %s", marker)
    await _flush(app)

    def mine(page):
        return sorted(line["message"] for line in page["content"] if marker in line["message"])

    warning_up = await _logs(client, admin.headers, niveau="WARNING", logger="unionflow.wave", size=200)
    assert mine(warning_up) == [f"wave en panne {marker}", f"wave lent {marker}"]
    errors = await _logs(client, admin.headers, niveau="ERROR", size=200)
    assert mine(errors) == [f"autre composant {marker}", f"wave en panne {marker}"]
    assert all(line["niveau"] in ("ERROR", "CRITICAL") for line in errors["content"])

    past = (datetime.now(UTC) - timedelta(days=2)).isoformat()
    assert mine(await _logs(client, admin.headers, dateFin=past, size=200)) == []
    recent = (datetime.now(UTC) - timedelta(minutes=5)).replace(tzinfo=None).isoformat()
    assert len(mine(await _logs(client, admin.headers, dateDebut=recent, size=200))) == 4

    first = await _logs(client, admin.headers, logger="unionflow.wave", size=1)
    second = await _logs(client, admin.headers, logger="unionflow.wave", size=1, page=1)
    assert first["content"][0]["id"] != second["content"][0]["id"] and first["totalElements"] >= 3
    assert first["content"][0]["horodatage"] >= second["content"][0]["horodatage"]

    for bad in ({"niveau": "BAVARD"}, {"dateDebut": "hier"}, {"size": 500},
                {"dateDebut": datetime.now(UTC).isoformat(), "dateFin": past}):
        response = await client.get("/api/logs", headers=admin.headers, params=bad)
        assert response.status_code == 400, bad
        assert response.headers["content-type"].startswith("application/problem+json")


async def test_retention_purges_old_records_only(app, db, settings):
    now = datetime.now(UTC)
    for age in (settings.log_retention_days + 1, settings.log_retention_days - 1):
        db.add(JournalSysteme(horodatage=now - timedelta(days=age), niveau="INFO", logger="unionflow.test",
                              message=f"âge {age}"))
    await db.flush()
    assert await app.state.journal.purge(app.state.sessionmaker, now) >= 1
    kept = (await db.execute(select(JournalSysteme.message).where(JournalSysteme.logger == "unionflow.test")))
    assert list(kept.scalars()) == [f"âge {settings.log_retention_days - 1}"]


def test_buffer_is_bounded_and_never_fed_by_its_own_writer():
    handler = journal.JournalHandler(logging.INFO, capacity=3)
    for n in range(5):
        handler.handle(logging.LogRecord("unionflow.x", logging.INFO, __file__, 1, f"m{n}", None, None))
    assert [r["message"] for r in handler.buffer] == ["m2", "m3", "m4"] and handler.dropped == 2
    handler.handle(logging.LogRecord("sqlalchemy.engine", logging.WARNING, __file__, 1, "sql", None, None))
    handler.handle(logging.LogRecord("unionflow.journal", logging.WARNING, __file__, 1, "flush", None, None))
    token = journal._writing.set(True)
    try:
        handler.handle(logging.LogRecord("unionflow.x", logging.ERROR, __file__, 1, "pendant", None, None))
    finally:
        journal._writing.reset(token)
    assert [r["message"] for r in handler.buffer] == ["m2", "m3", "m4"]
    assert handler.drain(2) and len(handler.buffer) == 1


SECRETS = {
    "password": "Sup3r-Secret-Pass!",
    "bearer": "Authorization: Bearer abc.def-ghi_jkl",
    "jwt": JWT,
    "wave": "wave_sn_prod_AbCdEf0123456789xyz",
    "client_secret": '{"client_secret": "kc-secret-998877"}',
}


def test_redactor_masks_every_kind_of_secret(settings):
    redactor = Redactor(["configured-smtp-password"])
    text = redactor.text(
        f"login password={SECRETS['password']} {SECRETS['bearer']} token {JWT} cle {SECRETS['wave']} "
        f"{SECRETS['client_secret']} api_key: k-1234567 smtp configured-smtp-password end")
    for leaked in ("Sup3r-Secret-Pass!", "abc.def-ghi_jkl", JWT, SECRETS["wave"], "kc-secret-998877", "k-1234567",
                   "configured-smtp-password"):
        assert leaked not in text, (leaked, text)
    assert text.startswith("login password=" + MASK) and text.endswith("end")
    assert redactor.value({"Authorization": "Basic dXNlcjpwYXNz", "motDePasse": "x1", "nested": {"apiKey": "k"},
                           "montant": "5000"}) == \
        {"Authorization": MASK, "motDePasse": MASK, "nested": {"apiKey": MASK}, "montant": "5000"}


async def test_secrets_never_reach_the_log_lines_or_the_stored_logs(app, client, factory, settings, caplog):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    marker = uuid.uuid4().hex
    log = logging.getLogger("unionflow.wave.client")
    log.error("appel %s refusé: headers=%s body=%s", marker, {"Authorization": f"Bearer {JWT}"},
              f"password={SECRETS['password']}", extra={"clientSecret": "kc-secret-998877",
                                                         "cle": settings.wave_api_key})
    try:
        raise RuntimeError(f"échec avec {SECRETS['bearer']} et {settings.wave_webhook_secret}")
    except RuntimeError:
        log.exception("trace %s", marker)
    await _flush(app)
    stored = [line for line in (await _logs(client, admin.headers, logger="unionflow.wave", size=200))["content"]
              if marker in line["message"]]
    assert len(stored) == 2
    printed = [JsonFormatter().format(r) for r in caplog.records if marker in r.getMessage()]
    everything = json.dumps(stored) + "".join(printed)
    for leaked in (JWT, SECRETS["password"], "abc.def-ghi_jkl", "kc-secret-998877", settings.wave_api_key,
                   settings.wave_webhook_secret):
        assert leaked not in everything, leaked
    trace = next(line for line in stored if line["exception"])
    assert "RuntimeError" in trace["exception"] and MASK in trace["exception"]
    assert next(line for line in stored if line["contexte"])["contexte"]["clientSecret"] == MASK


def test_the_context_filter_runs_once_per_record():
    record = logging.LogRecord("unionflow.x", logging.INFO, __file__, 1, "token=%s", ("abc123",), None)
    context = ContextFilter(Redactor())
    assert context.filter(record) and context.filter(record)
    assert record.getMessage() == f"token={MASK}"


def test_every_application_of_the_process_has_its_secrets_masked(app, settings, caplog):
    # The process's logging is configured once (by the first application); a later one adds its own secrets.
    configure_logging(settings.model_copy(update={"smtp_password": "another-app-smtp-secret"}))
    logging.getLogger("unionflow.notifications").warning("smtp login with another-app-smtp-secret refused")
    [record] = [r for r in caplog.records if r.name == "unionflow.notifications" and "smtp login" in r.getMessage()]
    assert record.getMessage() == f"smtp login with {MASK} refused"


def test_pdf_font_subsetting_steps_are_not_logged(app):
    # fontTools reports every step of subsetting a PDF's fonts at INFO (some 80 lines per statement or receipt).
    assert logging.getLogger("fontTools.subset").getEffectiveLevel() == logging.WARNING
