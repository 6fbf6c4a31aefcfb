"""``unionflow worker`` and ``unionflow users reset-password`` as operators run them: subprocesses on a fresh
database configured by environment."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.conftest import BACKEND
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.core.passwords import verify_password
from unionflow.models import ExecutionJob, PlanificationJob, UtilisateurLocal
from unionflow.models.base import utcnow
from unionflow.registres import JOBS

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")


def _run(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    # New session: no controlling terminal, so getpass reads the answers from stdin as a pipe would give them.
    return subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=300, cwd=ROOT, start_new_session=True)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
            "UNIONFLOW_DATA_DIR": str(tmp_path / "data"), "UNIONFLOW_ARGON2_TIME_COST": "1",
            "UNIONFLOW_ARGON2_MEMORY_COST": "1024", "PYTHONPATH": str(ROOT / "src")}


async def _query(url: str, stmt, *, seed: object | None = None) -> list:
    engine = create_engine(Settings(database_url=url))
    try:
        async with create_sessionmaker(engine)() as session:
            if seed is not None:
                session.add(seed)
                await session.commit()
            return list((await session.execute(stmt)).scalars())
    finally:
        await engine.dispose()


def _interval_variable(nom: str) -> str:
    variable = f"UNIONFLOW_JOB_{nom.upper().replace('-', '_')}_SECONDES"
    assert variable.removeprefix("UNIONFLOW_").lower() in Settings.model_fields, variable
    return variable


def test_worker_once_runs_the_due_jobs_and_records_them(tmp_path):
    env = _env(tmp_path)
    # Every job, derived from JOBS (a hand-written list missed compacter-synthese, every minute: issue 21), on a
    # slot a century long: no slot boundary can pass between the two runs, however slow the machine, so only the
    # seeded due job runs.
    env.update({_interval_variable(job.nom): str(100 * 365 * 86400) for job in JOBS})
    url = env["UNIONFLOW_DATABASE_URL"]
    assert _run(["migrate"], env).returncode == 0
    due = PlanificationJob(nom="nettoyer", prochaine_execution=utcnow() - timedelta(minutes=1))
    asyncio.run(_query(url, select(PlanificationJob), seed=due))
    done = _run(["worker", "--once"], env)
    assert done.returncode == 0, done.stderr
    # Not on a terminal: JSON lines, as `serve` writes them (docs/operations.md).
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    assert lines and all("level" in line and "message" in line for line in lines), done.stderr
    runs = asyncio.run(_query(url, select(ExecutionJob)))
    assert [(r.job, r.statut) for r in runs] == [("nettoyer", "REUSSIE")]
    # The others were scheduled for their next slot, not run.
    planned = {p.nom: p for p in asyncio.run(_query(url, select(PlanificationJob)))}
    assert set(planned) == {j.nom for j in JOBS}
    assert all(p.prochaine_execution > utcnow() and p.verrouillee_jusqua is None for p in planned.values())
    assert _run(["worker", "--once"], env).returncode == 0
    assert len(asyncio.run(_query(url, select(ExecutionJob)))) == 1


def test_reset_password_is_prompted_never_an_argument(tmp_path):
    env = _env(tmp_path)
    url = env["UNIONFLOW_DATABASE_URL"]
    assert _run(["migrate"], env).returncode == 0
    created = _run(["users", "create", "--email", "admin@union.sn", "--password", "ancien-secret-123",
                    "--role", "SUPER_ADMIN"], env)
    assert created.returncode == 0, created.stderr
    assert _run(["users", "reset-password", "--email", "admin@union.sn", "--password", "x"], env).returncode == 2

    mismatch = _run(["users", "reset-password", "--email", "admin@union.sn"], env, "nouveau-secret-456\nautre\n")
    assert mismatch.returncode == 1 and "diffèrent" in mismatch.stderr
    weak = _run(["users", "reset-password", "--email", "admin@union.sn"], env, "court\ncourt\n")
    assert weak.returncode == 1
    unknown = _run(["users", "reset-password", "--email", "nobody@union.sn"], env,
                   "nouveau-secret-456\nnouveau-secret-456\n")
    assert unknown.returncode == 1 and "nobody@union.sn" in unknown.stderr

    done = _run(["users", "reset-password", "--email", "Admin@Union.sn"], env,
                "nouveau-secret-456\nnouveau-secret-456\n")
    assert done.returncode == 0, done.stderr
    assert "nouveau-secret-456" not in done.stdout + done.stderr
    [user] = asyncio.run(_query(url, select(UtilisateurLocal)))
    assert verify_password(user.password_hash, "nouveau-secret-456")
    assert not verify_password(user.password_hash, "ancien-secret-123")


def test_serve_on_sqlite_runs_the_scheduler_in_process(tmp_path):
    import signal
    import socket
    import time

    import httpx

    env = _env(tmp_path)
    env.pop("UNIONFLOW_PLANIFICATEUR_INTEGRE", None)
    env["UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD"] = "bootstrap-password-123"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port),
                               "--no-access-log"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, start_new_session=True)
    try:
        planned: list = []
        deadline = time.monotonic() + 300  # a readiness wait, not a timing goal
        while time.monotonic() < deadline and len(planned) < 5:
            time.sleep(0.5)
            try:
                httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=2)
            except httpx.HTTPError:
                continue
            planned = asyncio.run(_query(env["UNIONFLOW_DATABASE_URL"], select(PlanificationJob)))
        # The scheduler of the server process prepared every job: nothing else was started.
        assert {p.nom for p in planned} == {j.nom for j in JOBS}
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=60)
    # uvicorn re-raises SIGTERM once shut down; the lifespan (and the scheduler task with it) ended cleanly.
    assert server.returncode in (0, -signal.SIGTERM), err
    assert b"Application shutdown complete" in err and b"Traceback" not in err, err


def test_worker_waits_for_the_schema_the_api_migrates(tmp_path):
    env = _env(tmp_path)
    waited = _run(["worker", "--once", "--schema-wait-seconds", "0"], env)
    assert waited.returncode == 1
    assert "unionflow migrate" in waited.stderr and "none" in waited.stderr, waited.stderr
    assert _run(["migrate"], env).returncode == 0
    assert _run(["worker", "--once", "--schema-wait-seconds", "0"], env).returncode == 0


def test_every_scheduled_job_has_its_manual_command_and_nettoyer_runs(tmp_path):
    from unionflow.cli import build_parser

    for job in JOBS:
        parsed = build_parser().parse_args(["jobs", job.nom])
        assert parsed.jobs_command == job.nom and callable(parsed.func), job.nom
    env = _env(tmp_path)
    assert _run(["migrate"], env).returncode == 0
    purged = _run(["jobs", "nettoyer"], env)
    assert purged.returncode == 0, purged.stderr
    assert "jetonsRafraichissement" in json.loads(purged.stdout.splitlines()[-1])
    helped = _run(["jobs", "--help"], env)
    assert "cron" not in helped.stdout.replace("no cron needed", "") and "worker" in helped.stdout
