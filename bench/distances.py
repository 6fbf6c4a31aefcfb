"""Beside every goal a run did not meet: its measured distance, the server CPU of a request against its reference,
and the newest flame graph of the scenario read into shares (``bench.lire_profil``), with what the shares say.

Issue 32 asks that a goal be met or « its measured distance and the profile that explains it written beside it »;
latest.md carries this section under its goals table. The profiles come from a separate profiled run
(``BENCH_PROFIL=<scenarios> python -m bench.run --only app``): sampling costs CPU, so the measured figures above are
never those of a profiled run, and each row names the flame graph it read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.lire_profil import parts

# What the shares of each scenario's profile show, and why the reference does not pay it (docs/performance.md,
# « every scenario at both scales, and what explains each distance »).
LECTURE = {
    "S1_get": "The reference is one prepared SELECT on one asyncpg connection behind a bare server. The endpoint "
              "runs the same statement; the rest is the HTTP stack and middlewares every route needs (request id, "
              "guard, drain, security headers, errors) and resolving the token and the caller's scope.",
    "auth_status": "`/api/status` checks the database (`SELECT 1` on a pooled connection); `/health/live` touches "
                   "nothing. Against `/health/ready`, which does the same database work without a token, the extra "
                   "line above is met: the token itself is 1–2 % of a request.",
    "S5_pay_pg": "The reference sends the same rows as prebuilt SQL text. The service builds them as ORM and Core "
                 "statements (cache keys, compiled-cache lookups, result rows into objects), nine statements in the "
                 "tests' count, with the idempotency record, the caller's scope and the audit trail.",
    "S5_approve_pg": "As for the payment: the reference's three writes are prebuilt SQL text; the service reads the "
                     "adhesion, its organisation, the membership and the webhook subscriptions, then sends one "
                     "combined write.",
}
LECTURE["S5_pay_sqlite"] = LECTURE["S5_pay_pg"]
LECTURE["S5_approve_sqlite"] = LECTURE["S5_approve_pg"]

# (lire_profil's part, column title, shown as its complement). SQLAlchemy's execution includes the driver's; on
# SQLite the driver works in aiosqlite's thread, outside the request's stack, so its column is not read there.
COLONNES = (("endpoint and its dependencies", "outside the endpoint", True),
            ("  dependencies (token, session, settings)", "dependencies", False),
            ("SQLAlchemy statement execution", "SQLAlchemy execution", False),
            ("  SQL compilation and cache keys", "of which compilation, cache keys", False),
            ("  asyncpg (bind, execute, fetch)", "of which asyncpg", False))


def newest_profile(dossier: Path, scenario: str) -> Path | None:
    found = sorted(dossier.glob(f"*-profil-{scenario}.svg"))
    return found[-1] if found else None


def _cpu(results: dict[str, Any], key: str) -> float | None:
    value = (results.get(key) or {}).get("cpu_us_per_req")
    return float(value) if value else None


def _shares(svg: Path | None, sqlite: bool) -> list[str]:
    if svg is None:
        return ["–"] * len(COLONNES)
    _, shares = parts(svg.read_text(encoding="utf-8"))
    # Above 100 %: the frames were sampled outside the request's stack (SQLite's greenlet and thread), not readable.
    return ["n/a (thread)" if (sqlite and "asyncpg" in label) or shares[label] > 100 else
            f"{100 - shares[label] if outside else shares[label]:.0f} %" for label, _, outside in COLONNES]


def section(goals: list[dict[str, Any]], scenarios: dict[str, Any], dossier: Path) -> str:
    """Markdown: one row per goal not met (the extra lines are explanations already, not goals)."""
    rows = [g for g in goals if g["status"] == "not met" and g.get("scenarios")
            and not g["goal"].startswith("(extra)")]
    if not rows:
        return ""
    out = ["", "## Goals not met: the distance and the profile that explains it", "",
           "Shares of a served request, read from the scenario's newest flame graph (`python -m bench.lire_profil`; "
           "a profiled run's own figures are not the measured ones).", "",
           "| goal | distance | server CPU µs/req (app / reference) | flame graph | "
           + " | ".join(titre for _, titre, _ in COLONNES) + " |",
           "|---|---|---|---|" + "---:|" * len(COLONNES)]
    lectures: dict[str, str] = {}
    for goal in rows:
        app, ref = goal["scenarios"]
        svg = newest_profile(dossier, app)
        cpu_app, cpu_ref = _cpu(scenarios, app), _cpu(scenarios, ref)
        cpu = (f"{cpu_app:,.0f} / {cpu_ref:,.0f} ({cpu_app / cpu_ref:.1f}×)" if cpu_app and cpu_ref else "–")
        out.append(f"| {goal['goal']} | {goal['figure']} | {cpu} | {f'`{svg.name}`' if svg else 'none'} | "
                   + " | ".join(_shares(svg, app.endswith("_sqlite"))) + " |")
        if app in LECTURE:
            lectures[app] = LECTURE[app]
    out += ["", *[f"- **{app}**: {texte}" for app, texte in lectures.items()]]
    return "\n".join(out) + "\n"
