"""``python -m bench.run``: data, servers, scenarios, references, goals, report. See docs/performance.md."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import report
from bench.config import RESULTS_DIR, ROOT, SCALES, SQLITE_SCALE, WORK_DIR, pg_database, pg_url
from bench.datagen import build_sqlite, ensure_pg
from bench.fixtures import (
    ADMIN_EMAIL,
    MEMBER_EMAIL,
    Pools,
    ensure_users,
    pg_pools,
    probe,
    spread_over_organisations,
    sqlite_pools,
    token,
)
from bench.procs import Server, cpu_seconds, drive, rss_kb, start_reference, start_service

T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.0f}s] {msg}", flush=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    p.add_argument("--scale", choices=sorted(SCALES), default=env("BENCH_SCALE", "default"))
    p.add_argument("--workers", type=int, default=int(env("BENCH_WORKERS", "0")) or (os.cpu_count() or 1))
    p.add_argument("--connections", type=int, default=int(env("BENCH_CONNECTIONS", "32")))
    p.add_argument("--duration", type=float, default=float(env("BENCH_DURATION", "15")),
                   help="measured seconds per scenario (after --warmup)")
    p.add_argument("--warmup", type=float, default=float(env("BENCH_WARMUP", "2")))
    p.add_argument("--soak", type=float, default=float(env("BENCH_SOAK", "180")), help="soak seconds (0: skip)")
    p.add_argument("--only", default=env("BENCH_ONLY", ""),
                   help="comma-separated groups: refs,app,sqlite,soak (default: all); s5: only the PostgreSQL "
                        "payment scenarios S5_pay_pg and S5_pay_pg_orgs")
    p.add_argument("--rebuild", action="store_true", help="rebuild the database even if its marker matches")
    return p.parse_args(argv)


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.scale = SCALES[args.scale]
        self.groups = set(filter(None, args.only.split(","))) or {"refs", "app", "sqlite", "soak"}
        self.s: dict[str, dict[str, Any]] = {}
        self.stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        self.meta: dict[str, Any] = {
            "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "scale": self.scale.name,
            "counts": ", ".join(f"{k} {v:,}" for k, v in self.scale.as_dict().items() if k != "name"),
            "workers": args.workers, "connections": args.connections, "duration": args.duration,
            "driver": "python asyncio/uvloop raw HTTP/1.1 keep-alive (separate process)", "commit": _commit(),
            "python": sys.version.split()[0], "cpus": os.cpu_count(), "served_src": os.environ.get("BENCH_SRC", "src"),
            "profiled": os.environ.get("BENCH_PROFIL", ""),
        }

    # ------------------------------------------------------------------------------------------ helpers

    def run(self, key: str, server: Server, requests: list[list[Any]], request: str, *, once: bool = False,
            probe_first: bool = True, duration: float | None = None, tick: Any = None,
            **extra: Any) -> dict[str, Any] | None:
        if not requests:
            self.s[key] = {"request": request, "skipped": "no data for this scenario"}
            return None
        if probe_first:
            status, body = probe(server.base, requests[0])
            if status in (404, 405):
                self.s[key] = {"request": request, "skipped": "endpoint missing", "probe_status": status,
                               "probe_body": body[:200]}
                log(f"{key}: skipped (endpoint missing, {status})")
                return None
            if once:
                requests = requests[1:]
                if not requests:
                    self.s[key] = {"request": request, "skipped": "no data left for this scenario"}
                    return None
        offset = server.log_size()
        workers = server.workers()
        cpu_before = cpu_seconds(workers)
        warmup = 0 if once else self.args.warmup
        profil = self._profiler(key, server, warmup + (duration or self.args.duration))
        try:
            res = drive(server, requests, connections=self.args.connections,
                        # Single-use write targets: a warm-up would spend them unmeasured (a fast reference
                        # could use them all up before the measured window opens).
                        duration=duration or self.args.duration, warmup=warmup, once=once, tick=tick)
        except RuntimeError as exc:
            self.s[key] = {"request": request, "error": str(exc)[:500]}
            log(f"{key}: driver error {exc}")
            return None
        finally:
            if profil is not None:
                profil.wait(timeout=120)
        if profil is not None:
            extra["profil"] = str(RESULTS_DIR.relative_to(ROOT) / f"{self.stamp}-profil-{key}.svg")
        # Server-side CPU per request: far steadier than req/s on a machine shared with other work.
        cpu = cpu_seconds(workers) - cpu_before
        res["cpu_us_per_req"] = round(cpu / res["all_requests"] * 1e6) if res.get("all_requests") else None
        logged = server.log_since(offset)
        res["locked"] = max(len(re.findall(r"^sqlite3\.OperationalError: database is locked", logged, re.M)),
                            len(re.findall(r"^sqlalchemy\.exc\.OperationalError: .*database is locked", logged,
                                           re.M)), res.get("locked_in_body", 0))
        res["server_errors_logged"] = logged.count("Traceback (most recent call last)")
        self.s[key] = {"request": request, **res, **extra}
        log(f"{key}: {res['rps']:,.0f} req/s ({res['ok_rps']:,.0f} 2xx/s) p50 {res['p50_ms']} ms "
            f"p99 {res['p99_ms']} ms cpu {res['cpu_us_per_req']} us/req errors {res['errors']}"
            f" non-2xx {res['non_2xx']} {res['statuses']}"
            + (f" locked {res['locked']}" if res["locked"] else ""))
        return res

    def _profiler(self, key: str, server: Server, seconds: float) -> subprocess.Popen[bytes] | None:
        """py-spy over the server and its workers for the scenario's run, when BENCH_PROFIL names it (or is
        ``all``): a flame graph beside the results. Sampling costs CPU on the machine that serves, so a profiled
        run's figures are not the measured ones (the report says so)."""
        wanted = set(filter(None, os.environ.get("BENCH_PROFIL", "").split(",")))
        if not (wanted & {key, "all"}):
            return None
        out = RESULTS_DIR / f"{self.stamp}-profil-{key}.svg"
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        return subprocess.Popen(
            [str(Path(sys.executable).with_name("py-spy")), "record", "--subprocesses", "--nonblocking",
             "--rate", "97", "--duration", str(max(1, round(seconds))), "--pid", str(server.proc.pid),
             "--output", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def write_budget(self) -> int:
        # Enough distinct targets for a whole write run at a generous rate; each dues is paid once.
        return int((self.args.duration + self.args.warmup + 2) * 800)

    def slice(self, items: list[Any], part: int) -> list[Any]:
        """Disjoint write targets: 0 the service's S5, 1 the like-for-like reference, 2 the soak (payments) or
        the minimal reference (adhesions), 3 the minimal payment reference, 4 S5_pay_pg_orgs."""
        budget = self.write_budget()
        return items[part * budget:(part + 1) * budget]

    # ------------------------------------------------------------------------------------------ groups

    def references(self, pools: Pools, dsn: str) -> None:
        w = self.args.workers
        bare = start_reference("ref-bare", "create_bare", w, {}, "/health/live")
        try:
            self.run("ref_bare", bare, [["GET", "/health/live", {}, None]], "bare Starlette JSON (ceiling)")
        finally:
            bare.stop()
        ref = start_reference("ref-pg", "create_pg", w, {"BENCH_REF_DSN": dsn}, "/health/live")
        try:
            self.run("ref_pg_get", ref, [["GET", f"/cotisations/{c}", {}, None] for c in pools.cotisations],
                     "raw asyncpg SELECT cotisation by id")
            self.run("ref_naive_list", ref, [["GET", "/cotisations?page=0&size=20", {}, None]],
                     "raw asyncpg LIMIT 20 + exact count(*)")
            self.run("ref_pg_pay", ref, _pay_requests(self.slice(pools.unpaid, 1), "/cotisations/{}/payer", {}),
                     "raw SQL transaction: pay dues, same rows as the service", once=True)
            self.run("ref_pg_pay_minimal", ref, _pay_requests(self.slice(pools.unpaid, 3),
                                                              "/cotisations/{}/payer-minimal", {}),
                     "raw SQL transaction: pay dues, minimal (lock, payment, allocation, dues, audit)", once=True)
            self.run("ref_pg_approve", ref, [["POST", f"/adhesions/{a}/approuver", {}, None]
                                             for a in self.slice(pools.pending_adhesions, 1)],
                     "raw SQL transaction: approve adhesion, same rows as the service", once=True)
            self.run("ref_pg_approve_minimal", ref, [["POST", f"/adhesions/{a}/approuver-minimal", {}, None]
                                                     for a in self.slice(pools.pending_adhesions, 2)],
                     "raw SQL transaction: approve adhesion, minimal (lock, update, audit)", once=True)
        finally:
            ref.stop()

    def app_scenarios(self, server: Server, pools: Pools, admin: dict[str, str], member: dict[str, str],
                      suffix: str = "") -> None:
        cot = pools.cotisations
        self.run("auth_anonymous", server, [["GET", "/health/live", {}, None]], "GET /health/live (anonymous)")
        self.run("auth_status", server, [["GET", "/api/status", admin, None]], "GET /api/status (ADMIN token)")
        # Same database work as /api/status (a session and SELECT 1) without a token: isolates authentication.
        self.run("auth_ready", server, [["GET", "/health/ready", {}, None]], "GET /health/ready (anonymous, DB)")
        self.run("org_get", server, [["GET", f"/api/organisations/{o}", admin, None] for o in pools.organisations],
                 "GET /api/organisations/{id} (stand-in get-by-id)")
        self.run("org_list", server, [["GET", "/api/organisations?page=0&size=20", admin, None]],
                 "GET /api/organisations (stand-in paged list)")
        self.run("member_orgs", server, [["GET", "/api/organisations/mes-organisations", member, None]],
                 "GET /api/organisations/mes-organisations (MEMBRE token)")
        self.run("S1_get", server, [["GET", f"/api/cotisations/{c}", admin, None] for c in cot],
                 "GET /api/cotisations/{id}")
        self.run("S2_list" + suffix, server, [["GET", "/api/cotisations?page=0&size=20", admin, None]],
                 "GET /api/cotisations?page=0&size=20")
        self.run("S3_deep", server, [["GET", "/api/cotisations?page=2000&size=20", admin, None]],
                 "GET /api/cotisations?page=2000&size=20")
        self.run("S4_cot_stats", server, [["GET", "/api/cotisations/statistiques", admin, None]],
                 "GET /api/cotisations/statistiques")
        self.run("S4_audit_stats", server, [["GET", "/api/audit/statistiques", admin, None]],
                 "GET /api/audit/statistiques")
        self.run("member_own_dues", server, [["GET", "/api/cotisations/mes-cotisations", member, None]],
                 "GET /api/cotisations/mes-cotisations (MEMBRE token)")
        self.payments(server, pools, admin)
        self.run("S5_approve_pg", server, [["POST", f"/api/adhesions/{a}/approuver", admin, None]
                                           for a in self.slice(pools.pending_adhesions, 0)],
                 "POST /api/adhesions/{id}/approuver", once=True)

    def payments(self, server: Server, pools: Pools, admin: dict[str, str]) -> None:
        self.run("S5_pay_pg", server, _pay_requests(self.slice(pools.unpaid, 0), "/api/cotisations/{}/payer", admin),
                 "PUT /api/cotisations/{id}/payer", once=True)
        # Issue 19: each organisation numbers its own receipts; concurrent payments of different organisations
        # must not queue on one counter row.
        self.run("S5_pay_pg_orgs", server, _pay_orgs_requests(pools, self.slice(pools.unpaid, 4), admin),
                 "PUT /api/cotisations/{id}/payer, round-robin over the organisations", once=True)

    def soak(self, server: Server, pools: Pools, admin: dict[str, str], writes: list[list[Any]]) -> None:
        """Mixed traffic for --soak seconds: reads of every present endpoint, ~10 % writes, worker RSS sampled."""
        candidates = [("S1_get", [["GET", f"/api/cotisations/{c}", admin, None] for c in pools.cotisations[:500]]),
                      ("S2_list", [["GET", "/api/cotisations?page=0&size=20", admin, None]]),
                      ("S4_cot_stats", [["GET", "/api/cotisations/statistiques", admin, None]]),
                      ("org_get", [["GET", f"/api/organisations/{o}", admin, None] for o in pools.organisations]),
                      ("org_list", [["GET", "/api/organisations?page=0&size=20", admin, None]]),
                      ("auth_status", [["GET", "/api/status", admin, None]])]
        present = [(k, reqs) for k, reqs in candidates if _ran(self.s.get(k))]
        if not present:
            self.s["S6_soak"] = {"request": "mixed", "skipped": "no read scenario ran"}
            return
        rng = random.Random(1)
        # Long enough that the list rarely wraps around within the soak: a payment sent twice answers 409.
        reads = [rng.choice(rng.choice(present)[1]) for _ in range(min(72_000, 9 * len(writes)) or 20_000)]
        mix: list[list[Any]] = []
        for i, r in enumerate(reads):
            mix.append(r)
            if writes and i % 9 == 8:
                mix.append(writes[(i // 9) % len(writes)])
        # The soak's own components: its reads and, when it writes, the payment scenario those writes repeat.
        components = [k for k, _ in present] + (["S5_pay_pg"] if writes and _ran(self.s.get("S5_pay_pg")) else [])
        single = max((self.s[k]["p99_ms"], k) for k in components)
        samples: list[tuple[float, dict[int, int | None]]] = []
        start_rss: dict[int, int] = {}

        def tick(elapsed: float) -> None:
            if elapsed >= self.args.warmup + 1 and (not samples or elapsed - samples[-1][0] >= 10):
                rss = {pid: rss_kb(pid) for pid in server.workers()}
                samples.append((elapsed, rss))
                for pid, kb in rss.items():
                    if kb is not None:
                        start_rss.setdefault(pid, kb)

        res = self.run("S6_soak", server, mix, f"mixed: {', '.join(k for k, _ in present)}"
                       + (" + ~10 % writes" if writes else ""), probe_first=False, duration=self.args.soak, tick=tick)
        if res is None:
            return
        end = {pid: rss_kb(pid) for pid in server.workers()}
        workers = [{"pid": pid, "start_kb": kb, "end_kb": end[pid],
                    "growth_pct": round(100 * ((end[pid] or kb) - kb) / kb, 2)}
                   for pid, kb in start_rss.items() if end.get(pid) is not None]
        self.s["S6_soak"].update({"single_p99_ms": single[0], "single_p99_from": single[1], "workers_rss": workers,
                                  "rss_samples": [[round(t), {str(k): v for k, v in r.items()}]
                                                  for t, r in samples]})

    def soak_running(self, server: Server, pools: Pools, admin: dict[str, str]) -> None:
        writes = []
        if _ran(self.s.get("S5_pay_pg")):
            writes = _pay_requests(self.slice(pools.unpaid, 2), "/api/cotisations/{}/payer", admin)
        self.soak(server, pools, admin, writes)

    def sqlite(self) -> None:
        w = self.args.workers
        base = str(WORK_DIR / "sqlite-app.db")
        build_sqlite(base, SQLITE_SCALE, log)
        ref_path = str(WORK_DIR / "sqlite-ref.db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(base + suffix):
                shutil.copyfile(base + suffix, ref_path + suffix)
            elif os.path.exists(ref_path + suffix):
                os.unlink(ref_path + suffix)
        pools = sqlite_pools(base)
        # Disjoint thirds of the targets: the service, the like-for-like reference, the minimal reference.
        unpaid, pending = _thirds(pools.unpaid), _thirds(pools.pending_adhesions)
        asyncio.run(ensure_users(f"sqlite:///{base}"))
        svc = start_service("app-sqlite", f"sqlite:///{base}", w)
        try:
            admin = {"Authorization": "Bearer " + token(svc.base, ADMIN_EMAIL)}
            self.run("S5_pay_sqlite", svc, _pay_requests(unpaid[0], "/api/cotisations/{}/payer", admin),
                     "PUT /api/cotisations/{id}/payer (SQLite)", once=True)
            self.run("S5_approve_sqlite", svc, [["POST", f"/api/adhesions/{a}/approuver", admin, None]
                                                for a in pending[0]],
                     "POST /api/adhesions/{id}/approuver (SQLite)", once=True)
        finally:
            svc.stop()
        if not any(_ran(self.s.get(k)) for k in ("S5_pay_sqlite", "S5_approve_sqlite")):
            log("SQLite references skipped: no SQLite write endpoint to compare with")
            return
        ref = start_reference("ref-sqlite", "create_sqlite", w, {"BENCH_REF_SQLITE": ref_path},
                              "/health/live")
        try:
            self.run("ref_sqlite_pay", ref, _pay_requests(unpaid[1], "/cotisations/{}/payer", {}),
                     "raw SQL transaction: pay dues, same rows as the service (SQLite)", once=True,
                     probe_first=False)
            self.run("ref_sqlite_pay_minimal", ref, _pay_requests(unpaid[2], "/cotisations/{}/payer-minimal", {}),
                     "raw SQL transaction: pay dues, minimal (SQLite)", once=True, probe_first=False)
            self.run("ref_sqlite_approve", ref, [["POST", f"/adhesions/{a}/approuver", {}, None] for a in pending[1]],
                     "raw SQL transaction: approve adhesion, same rows as the service (SQLite)", once=True,
                     probe_first=False)
            self.run("ref_sqlite_approve_minimal", ref, [["POST", f"/adhesions/{a}/approuver-minimal", {}, None]
                                                         for a in pending[2]],
                     "raw SQL transaction: approve adhesion, minimal (SQLite)", once=True, probe_first=False)
        finally:
            ref.stop()

    # ------------------------------------------------------------------------------------------ main

    def main(self) -> int:
        WORK_DIR.mkdir(parents=True, exist_ok=True)
        database = pg_database(self.scale)
        dsn = pg_url(database)
        need_pg = bool(self.groups & {"refs", "app", "soak", "s5"})
        if need_pg:
            self.meta["data"] = asyncio.run(ensure_pg(self.scale, database, log, force=self.args.rebuild))
            asyncio.run(ensure_users(dsn))
            pools = asyncio.run(pg_pools(dsn, unpaid=5 * self.write_budget(), adhesions=3 * self.write_budget()))
            budget = self.write_budget()
            short = len(pools.unpaid) < 5 * budget or len(pools.pending_adhesions) < 3 * budget
            if short and self.meta["data"]["reused"]:
                log("earlier runs used up the unpaid dues / pending adhesions: rebuilding the data")
                self.meta["data"] = asyncio.run(ensure_pg(self.scale, database, log, force=True))
                asyncio.run(ensure_users(dsn))
                pools = asyncio.run(pg_pools(dsn, unpaid=5 * self.write_budget(),
                                             adhesions=3 * self.write_budget()))
            log(f"pools: {len(pools.cotisations)} dues, {len(pools.unpaid)} unpaid, "
                f"{len(pools.pending_adhesions)} pending adhesions")
            if "refs" in self.groups:
                self.references(pools, dsn)
            if self.scale.name == "large" and "app" in self.groups:
                self.list_at_default_scale()
            if self.groups & {"app", "soak", "s5"}:
                svc = start_service("app-pg", dsn, self.args.workers)
                try:
                    admin = {"Authorization": "Bearer " + token(svc.base, ADMIN_EMAIL)}
                    member = {"Authorization": "Bearer " + token(svc.base, MEMBER_EMAIL)}
                    if "app" in self.groups:
                        self.app_scenarios(svc, pools, admin, member)
                    elif "s5" in self.groups:
                        self.payments(svc, pools, admin)
                    if "soak" in self.groups and self.args.soak > 0:
                        self.soak_running(svc, pools, admin)
                finally:
                    svc.stop()
        if "sqlite" in self.groups:
            self.sqlite()
        self.meta["total_seconds"] = round(time.monotonic() - T0, 1)
        results = {"meta": self.meta, "scenarios": self.s,
                   "goals": report.evaluate(self.s, self.scale.name == "large")}
        complete = not self.args.only and not os.environ.get("BENCH_SRC") and not os.environ.get("BENCH_PROFIL")
        json_path, md_path = report.write(results, latest=complete)
        print(report.markdown(results))
        log(f"written {json_path.relative_to(ROOT)} and {md_path.relative_to(ROOT)}")
        return 0

    def list_at_default_scale(self) -> None:
        """S2's 10M goal compares with the same list at 1M: measure it on the default database too."""
        default = SCALES["default"]
        dsn = pg_url(pg_database(default))
        asyncio.run(ensure_pg(default, pg_database(default), log))
        asyncio.run(ensure_users(dsn))
        svc = start_service("app-pg-1M", dsn, self.args.workers)
        try:
            admin = {"Authorization": "Bearer " + token(svc.base, ADMIN_EMAIL)}
            self.run("S2_list_1M", svc, [["GET", "/api/cotisations?page=0&size=20", admin, None]],
                     "GET /api/cotisations?page=0&size=20 at 1M")
        finally:
            svc.stop()


def _pay_requests(unpaid: list[tuple[str, str]], path: str, headers: dict[str, str]) -> list[list[Any]]:
    # Every payment carries an Idempotency-Key, as a client retrying safely does (docs/paiements-wave.md).
    return [["PUT", path.format(cid), {**headers, "Idempotency-Key": f"bench-{cid}"}, json.dumps({"montant": amount})]
            for cid, amount in unpaid]


def _pay_orgs_requests(pools: Pools, unpaid: list[tuple[str, str]], headers: dict[str, str]) -> list[list[Any]]:
    return _pay_requests(spread_over_organisations(unpaid, pools.organisation_of), "/api/cotisations/{}/payer",
                         headers)


def _thirds(items: list[Any]) -> list[list[Any]]:
    third = len(items) // 3
    return [items[:third], items[third:2 * third], items[2 * third:]]


def _ran(r: dict[str, Any] | None) -> bool:
    return bool(r) and "skipped" not in r and "error" not in r  # type: ignore[operator]


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=False)
        dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True,
                               check=False)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    return Bench(parse(argv)).main()


if __name__ == "__main__":
    raise SystemExit(main())
