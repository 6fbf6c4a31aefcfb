"""Goals of the performance issue, evaluated on one run's figures, and the JSON / Markdown output."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import distances
from bench.config import RESULTS_DIR

Results = dict[str, Any]


def _ok(r: dict[str, Any] | None) -> bool:
    return bool(r) and "skipped" not in r and "error" not in r  # type: ignore[operator]


def _rps(r: dict[str, Any] | None) -> float:
    return float(r["ok_rps"]) if r and _ok(r) else 0.0


def _missing(*items: tuple[str, dict[str, Any] | None]) -> str | None:
    for name, r in items:
        if not r:
            return f"{name} not run"
        if "skipped" in r:
            return f"{name} {r['skipped']}"
        if "error" in r:
            return f"{name} failed"
    return None


def _ratio_goal(goal: str, num: tuple[str, dict[str, Any] | None], den: tuple[str, dict[str, Any] | None],
                target: float, what: str = "throughput", scenarios: tuple[str, str] | None = None) -> dict[str, Any]:
    """``scenarios``: the app's and the reference's keys, for the profile beside a goal not met (bench/distances)."""
    why = _missing(num, den)
    if why:
        return {"goal": goal, "status": "not measured", "figure": why}
    ratio = _rps(num[1]) / _rps(den[1]) if _rps(den[1]) else 0.0
    shown = f"{ratio:.1f}×" if target >= 2 else f"{ratio:.0%}"
    return {"goal": goal, "status": "met" if ratio >= target else "not met", "value": round(ratio, 3),
            "figure": f"{shown} ({num[0]} {_rps(num[1]):,.0f} req/s vs {den[0]} {_rps(den[1]):,.0f} req/s {what})",
            **({"scenarios": list(scenarios)} if scenarios else {})}


def evaluate(s: dict[str, dict[str, Any]], large: bool) -> list[dict[str, Any]]:
    g = s.get
    goals = [_ratio_goal("S1 get-by-id ≥ 60 % of raw asyncpg", ("S1", g("S1_get")), ("raw", g("ref_pg_get")), 0.60,
                         scenarios=("S1_get", "ref_pg_get"))]
    if large:
        goals.append(_ratio_goal("S2 list at 10M ≥ 90 % of S2 at 1M", ("10M", g("S2_list")),
                                 ("1M", g("S2_list_1M")), 0.90))
    else:
        goals.append({"goal": "S2 list at 10M ≥ 90 % of S2 at 1M", "status": "not measured",
                      "figure": "run with --scale large"})
    goals.append(_ratio_goal("S2 list ≥ 10× naive exact count", ("S2", g("S2_list")),
                             ("naive", g("ref_naive_list")), 10.0))
    goals.append(_ratio_goal("S3 deep page (2000) ≥ 80 % of page 0", ("page 2000", g("S3_deep")),
                             ("page 0", g("S2_list")), 0.80))
    for key, name in (("S4_cot_stats", "cotisations"), ("S4_audit_stats", "audit")):
        goals.append(_ratio_goal(f"S4 {name} statistics within 2× of get-by-id", (name, g(key)),
                                 ("S1", g("S1_get")), 0.50))
    # S5 goals compare with the like-for-like references (the same rows as the service, bench/refs_complets.py);
    # the ratios against the minimal references (the pre-issue-12 ones) follow as extra lines.
    for label, app, ref in (("pay dues (PostgreSQL)", "S5_pay_pg", "ref_pg_pay"),
                            ("approve adhesion (PostgreSQL)", "S5_approve_pg", "ref_pg_approve"),
                            ("pay dues (SQLite)", "S5_pay_sqlite", "ref_sqlite_pay"),
                            ("approve adhesion (SQLite)", "S5_approve_sqlite", "ref_sqlite_approve")):
        goals.append(_ratio_goal(f"S5 {label} ≥ 50 % of the like-for-like raw-SQL transaction", ("app", g(app)),
                                 ("raw", g(ref)), 0.50, scenarios=(app, ref)))
    for label, app, ref in (("pay dues (PostgreSQL)", "S5_pay_pg", "ref_pg_pay_minimal"),
                            ("approve adhesion (PostgreSQL)", "S5_approve_pg", "ref_pg_approve_minimal"),
                            ("pay dues (SQLite)", "S5_pay_sqlite", "ref_sqlite_pay_minimal"),
                            ("approve adhesion (SQLite)", "S5_approve_sqlite", "ref_sqlite_approve_minimal")):
        goals.append(_ratio_goal(f"(extra) S5 {label} vs the minimal raw-SQL transaction", ("app", g(app)),
                                 ("minimal", g(ref)), 0.50))
    sqlite_runs = [(k, v) for k, v in s.items() if k.startswith("S5_") and k.endswith("_sqlite") and _ok(v)]
    if sqlite_runs:
        locked = sum(int(v.get("locked", 0)) for _, v in sqlite_runs)
        goals.append({"goal": "zero \"database is locked\" on SQLite (S5)", "status": "met" if locked == 0 else
                      "not met", "value": locked, "figure": f"{locked} locked errors in "
                      + ", ".join(k for k, _ in sqlite_runs)})
    else:
        goals.append({"goal": "zero \"database is locked\" on SQLite (S5)", "status": "not measured",
                      "figure": "no SQLite write scenario ran (endpoints missing)"})
    goals.append(_ratio_goal("authenticated ≥ 60 % of anonymous", ("GET /api/status", g("auth_status")),
                             ("GET /health/live", g("auth_anonymous")), 0.60,
                             scenarios=("auth_status", "auth_anonymous")))
    auth_only = _ratio_goal("(extra) authenticated ≥ 60 % of anonymous with the same DB work",
                            ("GET /api/status", g("auth_status")), ("GET /health/ready", g("auth_ready")), 0.60)
    goals.append(auth_only)
    soak = g("S6_soak")
    if not _ok(soak):
        goals.append({"goal": "soak", "status": "not measured", "figure": (soak or {}).get("skipped", "not run")})
    else:
        assert soak is not None
        single = soak.get("single_p99_ms") or 0
        p99 = soak.get("p99_ms") or 0
        goals.append({"goal": "soak p99 ≤ 2× single-scenario p99", "value": p99,
                      "status": "met" if single and p99 <= 2 * single else "not met",
                      "figure": f"{p99} ms vs {single} ms ({soak.get('single_p99_from')})"})
        growth = max((w["growth_pct"] for w in soak.get("workers_rss", [])), default=None)
        goals.append({"goal": "soak memory growth < 10 % per worker", "value": growth,
                      "status": "not measured" if growth is None else "met" if growth < 10 else "not met",
                      "figure": ", ".join(f"pid {w['pid']}: {w['start_kb'] / 1024:.0f}→{w['end_kb'] / 1024:.0f} MB "
                                          f"({w['growth_pct']:+.1f} %)" for w in soak.get("workers_rss", []))})
        fives = int(soak.get("status_5xx", 0)) + int(soak.get("errors", 0))
        goals.append({"goal": "soak zero 5xx", "status": "met" if fives == 0 else "not met", "value": fives,
                      "figure": f"{soak.get('status_5xx', 0)} 5xx, {soak.get('errors', 0)} transport errors "
                                f"over {soak.get('requests', 0):,} requests"})
    return goals


def _cell(v: Any) -> str:
    return "–" if v is None else f"{v:,.0f}" if isinstance(v, float) and v >= 100 else str(v)


def markdown(results: Results) -> str:
    meta = results["meta"]
    out = [f"# UnionFlow bench — {meta['started']}", "",
           f"Scale `{meta['scale']}` ({meta['counts']}), {meta['workers']} workers, {meta['connections']} "
           f"connections, {meta['duration']} s per scenario, driver `{meta['driver']}`, commit `{meta['commit']}`, "
           f"total {meta.get('total_seconds', 0):.0f} s.", "",
           *([f"**Profiled run** (py-spy on the server while `{meta['profiled']}` ran: those figures carry the "
              "sampler's cost; the flame graphs are named in the notes).", ""] if meta.get("profiled") else []),
           "| scenario | request | req/s | 2xx/s | p50 ms | p99 ms | server CPU µs/req | errors | non-2xx | notes |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for key, r in results["scenarios"].items():
        if "skipped" in r or "error" in r:
            out.append(f"| {key} | {r.get('request', '')} | | | | | | | | {r.get('skipped') or r.get('error')} |")
            continue
        notes = []
        if r.get("non_2xx"):
            notes.append("statuses " + ", ".join(f"{k}×{v}" for k, v in r["statuses"].items()))
        if r.get("locked"):
            notes.append(f"{r['locked']} database is locked")
        if r.get("note"):
            notes.append(r["note"])
        if r.get("profil"):
            notes.append(f"flame graph `{r['profil']}`")
        out.append(f"| {key} | {r.get('request', '')} | {_cell(r['rps'])} | {_cell(r['ok_rps'])} | "
                   f"{_cell(r['p50_ms'])} | {_cell(r['p99_ms'])} | {_cell(r.get('cpu_us_per_req'))} | "
                   f"{r['errors']} | {r['non_2xx']} | "
                   f"{'; '.join(notes)} |")
    out += ["", "| goal | status | figure |", "|---|---|---|"]
    out += [f"| {g['goal']} | **{g['status']}** | {g['figure']} |" for g in results["goals"]]
    return "\n".join(out) + "\n"


def write(results: Results, latest: bool = True) -> tuple[Path, Path]:
    """Timestamped files always; ``latest.*`` only for complete runs of this tree (not --only / BENCH_SRC)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    scale = results["meta"]["scale"]
    # A complete run's goals not met get their distance and profile beside them (bench/distances.py).
    md = markdown(results) + (distances.section(results["goals"], results["scenarios"], RESULTS_DIR) if latest else "")
    js = json.dumps(results, indent=2, default=str)
    kind = scale if latest else f"{scale}-partial"
    json_path = RESULTS_DIR / f"{stamp}-{kind}.json"
    md_path = RESULTS_DIR / f"{stamp}-{kind}.md"
    json_path.write_text(js)
    md_path.write_text(md)
    if latest:
        (RESULTS_DIR / "latest.json").write_text(js)
        (RESULTS_DIR / "latest.md").write_text(md + autres_mesures())
    return json_path, md_path


# The benches that run apart from ``bench.run`` (issue 32's scale scenarios among them), by their files' suffix.
AUTRES = {"echelle": "closing, consolidation, statements (`make bench-echelle`)",
          "reprise": "restart after a crash (`make bench-reprise`)",
          "generation": "dues generation (`make bench-generation`)", "sms": "reminder wave (`make bench-sms`)",
          "moteurs": "task engines (`make bench-moteurs`)", "import": "member import (`make bench-import`)",
          "ussd": "USSD sessions (`make bench-ussd`)", "national-partial": "`bench.run --scale national`"}


def autres_mesures() -> str:
    """latest.md's index of the newest result of every other bench, per scale where the result names one."""
    lines = ["", "## The other benches: their newest results", "", "| bench | scale | file |", "|---|---|---|"]
    for sorte, quoi in AUTRES.items():
        newest: dict[str, Path] = {}
        for path in sorted(RESULTS_DIR.glob(f"*-{sorte}.json")):
            try:
                scale = str(json.loads(path.read_text()).get("scale") or "")
            except (ValueError, AttributeError):
                scale = ""
            newest[scale or "–"] = path
        for scale, path in sorted(newest.items()):
            shown = path.with_suffix(".md") if path.with_suffix(".md").exists() else path
            lines.append(f"| {quoi} | {scale} | `{shown.name}` |")
    return "\n".join(lines) + "\n"


def ecrire(resultat: dict[str, Any], nom: str, rapport_md: str | None, stamp: str) -> None:
    """A standalone bench's result: bench/results/<stamp>-<nom>.json, and .md when it has a report."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"{stamp}-{nom}.json").write_text(json.dumps(resultat, indent=2, ensure_ascii=False))
    if rapport_md is not None:
        (RESULTS_DIR / f"{stamp}-{nom}.md").write_text(rapport_md)
