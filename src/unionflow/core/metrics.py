"""Prometheus metrics (GET /metrics, docs/operations.md) and the helpers other areas call to record them.

Several worker processes: ``unionflow serve --workers N`` points ``PROMETHEUS_MULTIPROC_DIR`` at an emptied
directory before the workers start, every process writes its samples there, and a scrape answered by any worker
adds them all up. Business counters move only when the transaction that did the work commits
(``after_commit``), so a rolled-back payment is never counted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.orm import Session, SessionTransaction

from unionflow.core.logs import request_id_var

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
log = logging.getLogger("unionflow.jobs")

HTTP_REQUESTS = Counter("unionflow_http_requests", "Requêtes HTTP servies", ["method", "route", "status"])
HTTP_DURATION = Histogram("unionflow_http_request_duration_seconds", "Durée des requêtes HTTP",
                          ["method", "route", "status"],
                          buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
DB_POOL_IN_USE = Gauge("unionflow_db_pool_connections_in_use", "Connexions du pool en cours d'utilisation",
                       multiprocess_mode="livesum")
DB_POOL_SIZE = Gauge("unionflow_db_pool_size", "Taille des pools de connexions", multiprocess_mode="livesum")
# `job_name`, not `job`: Prometheus sets `job` on every scraped series and would keep ours as `exported_job`.
JOB_RUNS = Counter("unionflow_job_runs", "Exécutions de tâches planifiées", ["job_name", "outcome"])
JOB_DURATION = Histogram("unionflow_job_duration_seconds", "Durée des tâches planifiées", ["job_name"],
                         buckets=(0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600))
PAIEMENTS_VALIDES = Counter("unionflow_paiements_valides", "Paiements validés", ["methode"])
PAIEMENTS_MONTANT = Counter("unionflow_paiements_valides_montant", "Montant des paiements validés (unité monétaire)",
                            ["methode", "devise"])
ALERTES_LCBFT = Counter("unionflow_alertes_lcb_ft", "Alertes LCB-FT levées", ["type_alerte"])
NOTIFICATIONS = Counter("unionflow_notifications", "Notifications traitées par l'envoi", ["canal", "resultat"])
# Reads of the replica routes (core/replica.py): served by the replica, or sent to the primary and why.
REPLICA_LECTURES = Counter("unionflow_replica_reads", "Lectures servies par le réplica")
REPLICA_REPLIS = Counter("unionflow_replica_fallback", "Lectures du réplica servies par le primaire", ["raison"])


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def process_exit() -> None:
    """A worker stopping: its live gauges (pool) leave the sums; its counters stay, as counters must."""
    directory = multiprocess_dir()
    if directory:
        mark_process_dead(os.getpid(), directory)


def render(extra: list[Metric]) -> bytes:
    """The exposition text: every process's samples (multiprocess mode) or this one's, then ``extra`` (values
    measured at scrape time, e.g. the age of the last backup)."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)

    class _Scraped:
        def collect(self) -> list[Metric]:
            return extra

    scraped = CollectorRegistry()
    scraped.register(_Scraped())
    return body + generate_latest(scraped)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(method, route, str(status)).inc()
    HTTP_DURATION.labels(method, route, str(status)).observe(seconds)


def observe_pool(engine: AsyncEngine) -> None:
    pool: Any = engine.sync_engine.pool
    checkedout, size = getattr(pool, "checkedout", None), getattr(pool, "size", None)
    if callable(checkedout) and callable(size):
        DB_POOL_IN_USE.set(checkedout())
        DB_POOL_SIZE.set(size())


# --- business counters, counted when the transaction commits -------------------------------------------------

_PENDING = "unionflow_metrics_after_commit"


def after_commit(session: AsyncSession | Session, action: Callable[[], None]) -> None:
    sync = session.sync_session if isinstance(session, AsyncSession) else session
    sync.info.setdefault(_PENDING, []).append(action)


@event.listens_for(Session, "after_commit")
def _on_commit(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint released: the transaction may still roll back
        return
    for action in session.info.pop(_PENDING, []):
        action()


@event.listens_for(Session, "after_soft_rollback")
def _on_rollback(session: Session, previous_transaction: SessionTransaction) -> None:
    if previous_transaction.parent is None:  # the whole transaction, not a savepoint inside it
        session.info.pop(_PENDING, None)


def paiement_valide(session: AsyncSession, methode: str, montant: Decimal, devise: str) -> None:
    def count() -> None:
        PAIEMENTS_VALIDES.labels(methode).inc()
        PAIEMENTS_MONTANT.labels(methode, devise).inc(float(montant))

    after_commit(session, count)


def alertes_lcb_ft(session: AsyncSession, types_alerte: list[str]) -> None:
    def count() -> None:
        for type_alerte in types_alerte:
            ALERTES_LCBFT.labels(type_alerte).inc()

    after_commit(session, count)


def notification_traitee(canal: str, resultat: str) -> None:
    """Called by the delivery after its own commit (one row per transaction there)."""
    NOTIFICATIONS.labels(canal, resultat).inc()


# --- jobs -----------------------------------------------------------------------------------------------------

@dataclass
class JobRun:
    job: str
    run_id: str
    counts: dict[str, int] = field(default_factory=dict)
    outcome: str = "succes"


@contextlib.contextmanager
def job_run(job: str) -> Iterator[JobRun]:
    """Wrap one run of a periodic job (CLI or scheduler): duration and outcome metrics, one structured log line
    (job, outcome, durationMs, counts), and a ``job-…`` request id on every line the job logs meanwhile."""
    run = JobRun(job=job, run_id=f"job-{uuid.uuid4().hex}")
    token = request_id_var.set(run.run_id)
    started = time.perf_counter()
    try:
        yield run
    except BaseException:
        run.outcome = "echec"
        raise
    finally:
        seconds = time.perf_counter() - started
        JOB_RUNS.labels(job, run.outcome).inc()
        JOB_DURATION.labels(job).observe(seconds)
        level = logging.INFO if run.outcome == "succes" else logging.ERROR
        log.log(level, "job %s %s", job, run.outcome, exc_info=run.outcome != "succes",
                extra={"job": job, "outcome": run.outcome, "durationMs": round(seconds * 1000, 1),
                       "counts": dict(run.counts)})
        request_id_var.reset(token)
