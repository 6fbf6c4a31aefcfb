"""Before/after on the same data: ``python -m bench.compare --before <commit> [--path ...]``.

Serves ``git archive <commit> src`` and this checkout's ``src`` alternately (interleaved rounds, so a change of
load on a shared machine hits both sides), and prints medians of req/s, p99, server CPU per request and new
PostgreSQL sessions opened during each run. Uses the default-scale database built by ``bench.run``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import asyncpg

from bench.config import ROOT, SCALES, pg_database, pg_url
from bench.datagen import ensure_pg
from bench.fixtures import ADMIN_EMAIL, ensure_users, token
from bench.procs import cpu_seconds, drive, start_service

DEFAULT_PATHS = ["/api/status", "/api/organisations/mes-organisations", "/api/organisations?page=0&size=20",
                 "/health/ready"]


async def _sessions(dsn: str, database: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        return int(await conn.fetchval("SELECT sessions FROM pg_stat_database WHERE datname = $1", database))
    finally:
        await conn.close()


def measure(src: str | None, path: str, dsn: str, database: str, args: argparse.Namespace) -> tuple[Any, ...]:
    if src:
        os.environ["BENCH_SRC"] = src
    else:
        os.environ.pop("BENCH_SRC", None)
    server = start_service("compare", dsn, args.workers)
    try:
        headers = {"Authorization": "Bearer " + token(server.base, ADMIN_EMAIL)}
        workers = server.workers()
        cpu0, sessions0 = cpu_seconds(workers), asyncio.run(_sessions(dsn, database))
        res = drive(server, [["GET", path, headers, None]], connections=args.connections, duration=args.duration,
                    warmup=1)
        cpu = (cpu_seconds(workers) - cpu0) / max(1, res["all_requests"]) * 1e6
        return res["ok_rps"], res["p99_ms"], round(cpu), asyncio.run(_sessions(dsn, database)) - sessions0
    finally:
        server.stop()


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__)
    p.add_argument("--before", required=True, help="commit to compare this checkout with")
    p.add_argument("--path", action="append", help="GET path (repeatable), ADMIN token sent")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=float, default=8)
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    scale = SCALES["default"]
    database = pg_database(scale)
    dsn = pg_url(database)
    asyncio.run(ensure_pg(scale, database, print))
    asyncio.run(ensure_users(dsn))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.before, "src"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        before_src = str(Path(tmp) / "src")
        print("| request | req/s before → after | server CPU µs/req before → after | p99 ms before → after "
              "| new PG sessions per run |\n|---|---:|---:|---:|---|")
        for path in args.path or DEFAULT_PATHS:
            runs: dict[str, list[tuple[Any, ...]]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                runs["before"].append(measure(before_src, path, dsn, database, args))
                runs["after"].append(measure(None, path, dsn, database, args))
            med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
            sessions = {k: f"{min(r[3] for r in v)}–{max(r[3] for r in v)}" for k, v in runs.items()}
            b, a = med["before"], med["after"]
            print(f"| `GET {path}` | {b[0]:,.0f} → {a[0]:,.0f} ({a[0] / b[0] - 1:+.0%}) | {b[2]:,.0f} → {a[2]:,.0f} "
                  f"({a[2] / b[2] - 1:+.0%}) | {b[1]:.0f} → {a[1]:.0f} | {sessions['before']} → {sessions['after']} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
