"""``unionflow serve`` as operators start it: real processes on free ports. Metrics from several worker processes
add up in one scrape; the discovery document follows the port served; logs are JSON lines when not on a terminal;
the proxy settings reach uvicorn."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import BACKEND

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the process wiring")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UNIONFLOW_", "PROMETHEUS_"))}
    env.update({"UNIONFLOW_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.db'}", "UNIONFLOW_DATA_DIR": str(tmp_path),
                "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024",
                "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": "bootstrap-password-123", "PYTHONPATH": str(ROOT / "src"),
                **extra})
    return env


@contextmanager
def serve(tmp_path: Path, port: int, *args: str, **env: str) -> Iterator[tuple[str, Path]]:
    log = tmp_path / f"serve-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port), *args],
                                   env=_env(tmp_path, **env), stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # a readiness wait, not a timing goal: a loaded CI host may take minutes
        while True:
            try:
                if httpx.get(f"{base}/health/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass  # not listening yet: the loop below asserts the process is alive and the deadline
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        yield base, log
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _total(text: str, route: str) -> float:
    return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == "unionflow_http_requests_total" and s.labels.get("route") == route)


def _hit(base: str, count: int) -> None:
    def one(_: int) -> int:
        # A new connection each time, so the kernel spreads them over the workers.
        return httpx.get(f"{base}/health/live", headers={"Connection": "close"}, timeout=10).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(one, range(count))) == {200}


def _pids_live(log: Path) -> set[str]:
    """The workers that logged a ``/health/live`` request so far (a logging handler flushes each line)."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return {str(line["pid"]) for line in lines if line.get("route") == "/health/live"}


def test_two_workers_metrics_add_up_and_discovery_follows_the_port(tmp_path):
    port = _free_port()
    with serve(tmp_path, port, "--workers", "2", UNIONFLOW_LOG_FLUSH_SECONDS="0.5") as (base, log):
        served = 0
        metrics_dir = tmp_path / "prometheus"
        # Until both workers have answered some of them (the kernel picks the worker for each connection). Told by
        # their request lines, not by their metric files: a worker that only answered the readiness probe has a
        # file too, and on a loaded host all of a batch may go to the other one.
        while len(_pids_live(log)) < 2 and served < 400:
            _hit(base, 20)
            served += 20
        pids = {p.stem.split("_")[-1] for p in metrics_dir.glob("counter_*.db")}
        assert len(pids) == 2 and _pids_live(log) == pids, "both workers must have served requests"
        for _ in range(3):  # any worker may answer the scrape: each one sees the sum
            scrape = httpx.get(f"{base}/metrics", timeout=10)
            assert scrape.status_code == 200
            assert _total(scrape.text, "/health/live") == served
        discovery = httpx.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
        assert discovery["issuer"] == base and discovery["jwks_uri"] == f"{base}/api/auth/jwks"
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["logger"] == "unionflow.requests" and line["route"] == "/health/live"]
    assert len(requests) >= served and {str(line["pid"]) for line in requests} >= pids
    assert all(len(line["requestId"]) == 32 and line["level"] == "INFO" for line in requests)
    # Every worker stored its request lines (the last batch on shutdown), off the request path.
    with sqlite3.connect(tmp_path / "serve.db") as db:
        stored = db.execute("SELECT count(*), count(DISTINCT processus) FROM journal_systeme "
                            "WHERE route = '/health/live'").fetchone()
    assert stored == (len(requests), 2)


def test_two_servers_sharing_the_metrics_directory_add_up(tmp_path):
    shared = tmp_path / "metrics"
    shared.mkdir()
    first, second = _free_port(), _free_port()
    # Entered in order: the first one migrates the database, the second one starts on it.
    with serve(tmp_path, first, PROMETHEUS_MULTIPROC_DIR=str(shared)) as (a, _), \
            serve(tmp_path, second, "--no-migrate", PROMETHEUS_MULTIPROC_DIR=str(shared)) as (b, _):
        _hit(a, 3)
        _hit(b, 5)
        assert _total(httpx.get(f"{a}/metrics", timeout=10).text, "/health/live") == 8
        assert _total(httpx.get(f"{b}/metrics", timeout=10).text, "/health/live") == 8


def test_proxy_settings_reach_the_server(tmp_path):
    port = _free_port()
    with serve(tmp_path, port, "--forwarded-allow-ips", "127.0.0.1") as (base, _):
        forwarded = httpx.get(f"{base}/health/live", headers={"X-Forwarded-For": "203.0.113.7",
                                                              "X-Forwarded-Proto": "https"}, timeout=10)
        assert forwarded.status_code == 200
        # The client address the application sees is the forwarded one: /metrics (loopback only) refuses it.
        refused = httpx.get(f"{base}/metrics", headers={"X-Forwarded-For": "203.0.113.7"}, timeout=10)
        assert refused.status_code == 403
    port = _free_port()
    with serve(tmp_path, port, "--no-proxy-headers", "--no-migrate") as (base, _):
        assert httpx.get(f"{base}/metrics", headers={"X-Forwarded-For": "203.0.113.7"}, timeout=10).status_code == 200


def test_a_job_run_writes_one_structured_line_and_stores_it(tmp_path):
    env = _env(tmp_path)
    run = [sys.executable, "-m", "unionflow.cli"]
    assert subprocess.run([*run, "migrate"], env=env, capture_output=True, timeout=300).returncode == 0
    job = subprocess.run([*run, "jobs", "marquer-retards"], env=env, capture_output=True, text=True, timeout=300)
    assert job.returncode == 0, job.stderr
    [line] = [json.loads(s) for s in job.stderr.splitlines() if s.startswith("{") and '"unionflow.jobs"' in s]
    assert line["job"] == "marquer-retards" and line["outcome"] == "succes" and line["durationMs"] >= 0
    assert line["counts"] == {"exitCode": 0} and line["requestId"].startswith("job-")
    with sqlite3.connect(tmp_path / "serve.db") as db:
        stored = db.execute("SELECT request_id, contexte FROM journal_systeme "
                            "WHERE logger = 'unionflow.jobs'").fetchall()
    assert [row[0] for row in stored] == [line["requestId"]] and json.loads(stored[0][1])["outcome"] == "succes"
