"""``unionflow`` command line: serve, demo, migrate, users, worker, jobs, cotisations."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unionflow.config import Settings, get_settings
from unionflow.core.production import UnsafeProduction, check_production

if TYPE_CHECKING:
    from unionflow.core.journal import JournalWriter


def _migrate(_: argparse.Namespace) -> int:
    from unionflow.migrations.alembic import upgrade

    upgrade(get_settings().database_url)
    print("migrations applied")
    return 0


def _bootstrap() -> None:
    from unionflow.bootstrap import bootstrap

    settings = get_settings()
    generated = asyncio.run(bootstrap(settings))
    if generated:
        print("=" * 72)
        print(f"Super administrator created: {settings.bootstrap_admin_email}")
        print(f"Generated password (shown once, change it): {generated}")
        print("=" * 72, flush=True)


def _serve(args: argparse.Namespace) -> int:
    settings = get_settings()
    workers = args.workers or 1
    # Workers are separate processes: what they must know travels in the environment.
    if os.environ.get(METRICS_DIR_ENV):
        # Set by the operator (systemd RuntimeDirectory, shared with a worker): used as it is, never emptied here.
        Path(os.environ[METRICS_DIR_ENV]).mkdir(parents=True, exist_ok=True)
    elif workers > 1:
        _fresh_metrics_dir(settings.data_dir / "prometheus")
    if args.log_level:
        os.environ["UNIONFLOW_LOG_LEVEL"] = args.log_level.upper()
    if args.no_access_log:
        os.environ["UNIONFLOW_ACCESS_LOG"] = "false"
    if "public_base_url" not in settings.model_fields_set:
        # Unset: advertise where this process listens (issuer, discovery), not a fixed :8000.
        host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host  # noqa: S104
        os.environ["UNIONFLOW_PUBLIC_BASE_URL"] = f"http://{host}:{args.port}"
    get_settings.cache_clear()
    settings = get_settings()

    import uvicorn

    from unionflow.core import journal, listening
    from unionflow.core.db import is_sqlite
    from unionflow.core.logs import configure_logging

    configure_logging(settings, journal.handler)
    check_production(settings)  # before the migrations and the bootstrap administrator
    if not args.no_migrate:
        _migrate(args)
    _bootstrap()
    if is_sqlite(settings.database_url):
        # The embedded default needs no separate `unionflow worker`: each server process runs the scheduler
        # (runs stay unique). An explicit UNIONFLOW_PLANIFICATEUR_INTEGRE wins.
        os.environ.setdefault("UNIONFLOW_PLANIFICATEUR_INTEGRE", "true")
        get_settings.cache_clear()  # a single worker runs in this process and reads the cached settings
    forwarded = args.forwarded_allow_ips or settings.forwarded_allow_ips
    options: dict[str, Any] = {
        "factory": True, "host": args.host, "port": args.port, "workers": workers, "proxy_headers": args.proxy_headers,
        "forwarded_allow_ips": forwarded, "log_config": None, "log_level": settings.log_level.lower(),
        "access_log": False}
    if listening.disponible(workers):
        listening.servir(uvicorn.Config("unionflow.app:create_app", **options))
    else:
        uvicorn.run("unionflow.app:create_app", **options)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from unionflow.demo import lancer

    return lancer(args, _migrate, _serve)


METRICS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _fresh_metrics_dir(path: Path) -> None:
    """Set before prometheus_client is imported anywhere; emptied so a previous run's samples do not count."""
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink()
    os.environ[METRICS_DIR_ENV] = str(path.resolve())


def _new_password(args: argparse.Namespace) -> str | None:
    """The password of ``users create``: standard input (``--password-stdin``, first line), the command line
    (``--password``: visible in ``ps`` and the shell history, kept for scripts that accept that), or typed twice
    at a prompt. None after a mismatch."""
    import getpass

    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if args.password is not None:
        return str(args.password)
    password = getpass.getpass("Mot de passe: ")
    if getpass.getpass("Confirmer le mot de passe: ") != password:
        print("error: les deux saisies diffèrent", file=sys.stderr)
        return None
    return password


async def _create_user(args: argparse.Namespace) -> int:
    from unionflow.auth.service import create_local_user
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.core.errors import UnionFlowError

    password = _new_password(args)
    if password is None:
        return 1
    engine = create_engine(get_settings())
    try:
        async with create_sessionmaker(engine)() as session:
            try:
                user = await create_local_user(session, email=args.email, password=password,
                                               roles=args.role or ["USER"], prenom=args.first_name,
                                               nom=args.last_name)
            except UnionFlowError as exc:
                print(f"error: {exc.detail}", file=sys.stderr)
                return 1
            await session.commit()
            print(f"created user {user.email} ({user.id}) roles={','.join(user.realm_roles)}")
            return 0
    finally:
        await engine.dispose()


async def _list_users(_: argparse.Namespace) -> int:
    from unionflow.auth.repository import UtilisateurRepository
    from unionflow.core.db import create_engine, create_sessionmaker

    engine = create_engine(get_settings())
    try:
        async with create_sessionmaker(engine)() as session:
            for user in await UtilisateurRepository(session).all_by_email():
                state = "enabled" if user.enabled else "disabled"
                print(f"{user.id}  {user.email:40}  {state:8}  {','.join(user.realm_roles)}")
        return 0
    finally:
        await engine.dispose()


async def _worker(args: argparse.Namespace) -> int:
    import signal

    from unionflow.core.db import create_engine
    from unionflow.core.logs import configure_logging
    from unionflow.registres import Planificateur

    settings = get_settings()
    check_production(settings)
    configure_logging(settings)  # as `serve`: JSON when not on a terminal (UNIONFLOW_LOG_FORMAT)
    engine = create_engine(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        if await _schema_at_head(engine, stop, args.schema_wait_seconds):
            await Planificateur(engine, settings).run(stop, once=args.once)
            return 0
        return 1
    finally:
        await engine.dispose()


async def _schema_at_head(engine: Any, stop: asyncio.Event, wait_seconds: float) -> bool:
    """The worker never runs jobs on a schema the API has not migrated yet (systemd's After= orders the starts, not
    the end of the API's migrations): it waits for the head revision, logging what it waits for."""
    import logging

    from alembic.script import ScriptDirectory

    from unionflow.migrations.alembic import alembic_config, revisions_courantes

    log = logging.getLogger("unionflow.worker")
    heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    deadline = asyncio.get_running_loop().time() + wait_seconds
    while True:
        try:
            async with engine.connect() as connection:
                current = await revisions_courantes(connection)
        except Exception as exc:  # no table yet, or the database is starting: the same wait
            current = set()
            log.debug("schema revision unreadable: %r", exc)
        if current == heads:
            return True
        if stop.is_set() or asyncio.get_running_loop().time() >= deadline:
            log.error("database schema at %s, not at %s: run `unionflow migrate` (the API does at start)",
                      sorted(current) or "none", sorted(heads))
            return False
        log.warning("database schema at %s, waiting for %s (the API applies the migrations at start)",
                    sorted(current) or "none", sorted(heads))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 5)


async def _reset_password(args: argparse.Namespace) -> int:
    import getpass

    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.core.errors import UnionFlowError
    from unionflow.identity.reinitialisation import reinitialiser_par_cli

    password = getpass.getpass("Nouveau mot de passe: ")
    if getpass.getpass("Confirmer le mot de passe: ") != password:
        print("error: les deux saisies diffèrent", file=sys.stderr)
        return 1
    engine = create_engine(get_settings())
    try:
        async with create_sessionmaker(engine)() as session:
            try:
                user = await reinitialiser_par_cli(session, args.email, password)
            except UnionFlowError as exc:
                print(f"error: {exc.detail}", file=sys.stderr)
                return 1
            await session.commit()
            print(f"password reset for {user.email}; refresh tokens revoked")
            return 0
    finally:
        await engine.dispose()


async def _marquer_retards(args: argparse.Namespace) -> int:
    from datetime import UTC, date, datetime

    from tqdm import tqdm

    from unionflow.core.db import create_engine, create_sessionmaker, read_only_session, sqlite_write_intent
    from unionflow.cotisations.jobs import compter_retards, marquer_retards

    engine = create_engine(get_settings())
    token = sqlite_write_intent.set(True)
    try:
        day = date.fromisoformat(args.date) if args.date else datetime.now(UTC).date()
        sessionmaker = create_sessionmaker(engine)
        async with read_only_session(sessionmaker) as session:
            expected = await compter_retards(session, day)
        # On stderr, and only on a terminal (tqdm's disable=None): cron mails and logs stay clean.
        with tqdm(total=expected, unit="cotisation", desc="EN_RETARD", disable=None) as bar:
            total = await marquer_retards(sessionmaker, day, args.batch_size, bar.update)
        print(f"{total} cotisation(s) marquée(s) EN_RETARD")
        return 0
    finally:
        sqlite_write_intent.reset(token)
        await engine.dispose()


# Operator commands over every dues run as long as they need (10 M dues: tens of seconds), not under the
# statement timeout of requests.
LONG_STATEMENT_SECONDS = 3600.0


async def _reconstruire(quoi: str) -> int:
    """Rebuild a summary kept by deltas: ``synthese`` (dues statistics) or ``soldes`` (ledger per month)."""
    from unionflow.comptabilite.soldes_repository import reconstruire as reconstruire_soldes
    from unionflow.core.db import create_engine, create_sessionmaker, sqlite_write_intent
    from unionflow.cotisations.synthese_repository import reconstruire as reconstruire_synthese

    fonction, libelle = {"synthese": (reconstruire_synthese, "synthèse des cotisations"),
                         "soldes": (reconstruire_soldes, "soldes mensuels des comptes")}[quoi]
    settings = get_settings()
    engine = create_engine(settings.model_copy(update={"database_statement_timeout_seconds": LONG_STATEMENT_SECONDS}))
    token = sqlite_write_intent.set(True)
    try:
        async with create_sessionmaker(engine)() as session:
            buckets = await fonction(session)
            await session.commit()
        print(f"{libelle} reconstruite: {buckets} compartiment(s)")
        return 0
    finally:
        sqlite_write_intent.reset(token)
        await engine.dispose()


async def _compacter_synthese(_: argparse.Namespace) -> int:
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.cotisations.synthese_repository import compacter_synthese

    engine = create_engine(get_settings())
    try:
        counts = await compacter_synthese(create_sessionmaker(engine))
        print(f"synthèse des cotisations compactée: {counts['compartiments']} compartiment(s) mis à jour, "
              f"{counts['vides']} vide(s) supprimé(s)")
        return 0
    finally:
        await engine.dispose()


async def _envoyer_notifications(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from unionflow.core.db import create_engine, create_sessionmaker, read_only_session
    from unionflow.models.base import utcnow
    from unionflow.notifications.delivery import compter_dues, envoyer_notifications

    settings = get_settings()
    engine = create_engine(settings)
    try:
        sessionmaker = create_sessionmaker(engine)
        async with read_only_session(sessionmaker) as session:
            expected = await compter_dues(session, utcnow())
        with tqdm(total=expected, unit="notification", desc="envoi", disable=None) as bar:
            bilan = await envoyer_notifications(sessionmaker, settings, args.max_lots, bar.update)
        print(f"{bilan.envoyees} notification(s) envoyée(s), {bilan.reportees} reportée(s), "
              f"{bilan.echouees} échouée(s)")
        return 0
    finally:
        await engine.dispose()


async def _livrer_webhooks(args: argparse.Namespace) -> int:
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.webhooks.delivery import livrer_webhooks

    settings = get_settings()
    engine = create_engine(settings)
    try:
        bilan = await livrer_webhooks(create_sessionmaker(engine), settings, args.max_lots)
        print(f"{bilan.livrees} livraison(s) webhook réussie(s), {bilan.reportees} reportée(s), "
              f"{bilan.echouees} échouée(s), {bilan.abonnements_desactives} abonnement(s) désactivé(s)")
        return 0
    finally:
        await engine.dispose()


async def _jobs_surveiller(_: argparse.Namespace) -> int:
    from unionflow.monitoring.jobs import surveiller

    return await surveiller(get_settings())


async def _jobs_sauvegarder(args: argparse.Namespace) -> int:
    from unionflow.backups.jobs import sauvegarder

    return await sauvegarder(get_settings(), force=args.force)


async def _jobs_planifie(nom: str) -> int:
    """A scheduled job run by hand with the scheduler's own function (registres.JOBS)."""
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.core.jobs import Contexte
    from unionflow.registres import JOBS

    settings = get_settings()
    engine = create_engine(settings)
    try:
        job = next(j for j in JOBS if j.nom == nom)
        counts = await job.executer(Contexte(engine, create_sessionmaker(engine), settings))
        print(json.dumps(counts, ensure_ascii=False, default=str))
        return 0
    finally:
        await engine.dispose()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="unionflow", description="UnionFlow union management service")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="apply migrations, bootstrap, and run the HTTP service")
    serve.add_argument("--host", default=os.environ.get("UNIONFLOW_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("UNIONFLOW_PORT", "8000")))
    serve.add_argument("--workers", type=int, default=int(os.environ.get("UNIONFLOW_WORKERS", "1")))
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING... (default: UNIONFLOW_LOG_LEVEL)")
    serve.add_argument("--no-access-log", action="store_true", help="no per-request log line")
    serve.add_argument("--proxy-headers", action=argparse.BooleanOptionalAction, default=True,
                       help="trust X-Forwarded-For/-Proto from --forwarded-allow-ips (default: on)")
    serve.add_argument("--forwarded-allow-ips",
                       help="proxy addresses trusted for X-Forwarded-* (comma-separated, '*' for any; "
                            "default: UNIONFLOW_FORWARDED_ALLOW_IPS)")
    serve.add_argument("--no-migrate", action="store_true", help="do not apply migrations first")
    serve.set_defaults(func=_serve)

    demo = sub.add_parser("demo", help="load a demo federation on a demo database, start the Wave simulator "
                                       "on loopback, and serve (docs/paiements-wave.md)")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument("--wave-port", type=int, default=0, help="Wave simulator port (default: a free one)")
    demo.add_argument("--data-dir", default="var/demo", help="demo files; its demo.db is recreated at each run")
    demo.add_argument("--database-url", help="load into this (empty) database instead of DATA_DIR/demo.db")
    demo.set_defaults(func=_demo)

    migrate = sub.add_parser("migrate", help="apply database migrations")
    migrate.set_defaults(func=_migrate)

    users = sub.add_parser("users", help="built-in identity provider accounts")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    create = users_sub.add_parser("create", help="create a local account")
    create.add_argument("--email", required=True)
    given = create.add_mutually_exclusive_group()
    given.add_argument("--password-stdin", action="store_true",
                       help="read the password from standard input (first line); without it, it is prompted for")
    given.add_argument("--password", help="the password on the command line (visible in ps and history: avoid)")
    create.add_argument("--role", action="append", help="realm role (repeatable)")
    create.add_argument("--first-name")
    create.add_argument("--last-name")
    create.set_defaults(func=lambda a: asyncio.run(_create_user(a)))
    listing = users_sub.add_parser("list", help="list local accounts")
    listing.set_defaults(func=lambda a: asyncio.run(_list_users(a)))
    reset = users_sub.add_parser("reset-password", help="set a new password (prompted) and end all sessions")
    reset.add_argument("--email", required=True)
    reset.set_defaults(func=lambda a: asyncio.run(_reset_password(a)))

    worker = sub.add_parser("worker", help="run the periodic jobs on their schedule (exactly once across hosts)")
    worker.add_argument("--once", action="store_true", help="run the jobs due now, wait for them, and exit")
    worker.add_argument("--schema-wait-seconds", type=float, default=600,
                        help="wait this long for the API to migrate the schema before giving up (default: 600)")
    worker.set_defaults(func=lambda a: asyncio.run(_worker(a)))

    about_jobs = ("run one scheduled job now, by hand (the worker, or the embedded scheduler on SQLite, runs them "
                  "on their schedule: no cron needed)")
    jobs = sub.add_parser("jobs", help=about_jobs, description=about_jobs)
    jobs_sub = jobs.add_subparsers(dest="jobs_command", required=True)
    retards = jobs_sub.add_parser("marquer-retards", help="store EN_RETARD on dues past their due date")
    retards.add_argument("--date", help="reference day YYYY-MM-DD (default: today, UTC)")
    retards.add_argument("--batch-size", type=int, default=5000)
    retards.set_defaults(func=lambda a: asyncio.run(_marquer_retards(a)))
    envoi = jobs_sub.add_parser("envoyer-notifications", help="deliver pending e-mail/SMS notifications")
    envoi.add_argument("--max-lots", type=int, help="stop after this many batches (default: until none is due)")
    envoi.set_defaults(func=lambda a: asyncio.run(_envoyer_notifications(a)))
    watch = jobs_sub.add_parser("surveiller", help="evaluate system alerts now; exit 0 OK, 1 WARNING, 2 CRITICAL")
    watch.set_defaults(func=lambda a: asyncio.run(_jobs_surveiller(a)))
    backup = jobs_sub.add_parser("sauvegarder", help="take the automatic backup if due, then apply retention")
    backup.add_argument("--force", action="store_true", help="back up now, whatever the schedule")
    backup.set_defaults(func=lambda a: asyncio.run(_jobs_sauvegarder(a)))
    hooks = jobs_sub.add_parser("livrer-webhooks", help="deliver due outbound webhooks (signed, with retries)")
    hooks.add_argument("--max-lots", type=int, help="stop after this many batches (default: until none is due)")
    hooks.set_defaults(func=lambda a: asyncio.run(_livrer_webhooks(a)))
    compaction = jobs_sub.add_parser("compacter-synthese",
                                     help="fold the dues deltas into the statistics summary (cotisation_synthese)")
    compaction.set_defaults(func=lambda a: asyncio.run(_compacter_synthese(a)))
    soldes_job = jobs_sub.add_parser("compacter-soldes",
                                     help="fold the ledger deltas into the monthly balances (solde_compte_mois)")
    soldes_job.set_defaults(func=lambda a: asyncio.run(_jobs_planifie("compacter-soldes")))
    purge = jobs_sub.add_parser("nettoyer", help="delete expired tokens, throttle windows, old run history and "
                                                 "old export files")
    purge.set_defaults(func=lambda a: asyncio.run(_jobs_planifie("nettoyer")))
    retention = jobs_sub.add_parser("retention-donnees",
                                    help="pseudonymise members struck off long ago who owe nothing, and blank old "
                                         "notification and inbound SMS texts (periods: docs/operations.md)")
    retention.set_defaults(func=lambda a: asyncio.run(_jobs_planifie("retention-donnees")))

    cotisations = sub.add_parser("cotisations", help="dues maintenance")
    cotisations_sub = cotisations.add_subparsers(dest="cotisations_command", required=True)
    rebuild = cotisations_sub.add_parser(
        "reconstruire-synthese",
        help="recompute the statistics summary from every dues (writers of dues wait while it runs)")
    rebuild.set_defaults(func=lambda a: asyncio.run(_reconstruire("synthese")))

    comptabilite = sub.add_parser("comptabilite", help="ledger maintenance")
    comptabilite_sub = comptabilite.add_subparsers(dest="comptabilite_command", required=True)
    soldes = comptabilite_sub.add_parser(
        "reconstruire-soldes",
        help="recompute the ledger's monthly balances from every entry line (writers of entries wait while it runs)")
    soldes.set_defaults(func=lambda a: asyncio.run(_reconstruire("soldes")))
    return parser


def _run_job(args: argparse.Namespace) -> int:
    """A manual or cron run of a job: the job's structured log line and metrics (core.metrics.job_run), and its
    log records stored like the service's."""
    from unionflow.core import journal
    from unionflow.core.journal import JournalWriter
    from unionflow.core.logs import configure_logging
    from unionflow.core.metrics import job_run

    settings = get_settings()
    configure_logging(settings, journal.handler)
    try:
        with job_run(args.jobs_command) as run:
            code = int(args.func(args) or 0)
            run.counts["exitCode"] = code
        return code
    finally:
        asyncio.run(_store_logs(settings, JournalWriter(settings)))


async def _store_logs(settings: Settings, writer: JournalWriter) -> None:
    from unionflow.core.db import create_engine, create_sessionmaker

    engine = create_engine(settings)
    try:
        await writer.flush(create_sessionmaker(engine))
    except Exception as exc:  # the database may be what failed; the lines are on stderr already
        print(f"stored logs not written: {exc.__class__.__name__}", file=sys.stderr)
    finally:
        await engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "jobs":
            return _run_job(args)
        return int(args.func(args) or 0)
    except UnsafeProduction as refused:
        # Already logged at CRITICAL, reason by reason; repeated here for a start without logging configured.
        print(f"error: {refused}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
