"""Bench users, tokens and id pools, made through the project's own code and public API."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

ADMIN_EMAIL = "bench-admin@bench.unionflow.local"
# Linked by e-mail to the first generated member (a MEMBRE of one organisation).
MEMBER_EMAIL = "membre0@bench.unionflow.local"
PASSWORD = "Bench-Password-2026!"


async def ensure_users(database_url: str) -> None:
    from unionflow.auth.service import create_local_user
    from unionflow.config import Settings
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.core.errors import Conflict

    engine = create_engine(Settings(database_url=database_url))
    try:
        for email, roles in ((ADMIN_EMAIL, ["ADMIN"]), (MEMBER_EMAIL, ["USER"])):
            async with create_sessionmaker(engine)() as session:
                try:
                    await create_local_user(session, email=email, password=PASSWORD, roles=roles,
                                            prenom="Bench", nom="Utilisateur", check_password=False)
                    await session.commit()
                except Conflict:
                    await session.rollback()
    finally:
        await engine.dispose()


def token(base: str, email: str) -> str:
    data = urllib.parse.urlencode({"grant_type": "password", "username": email, "password": PASSWORD}).encode()
    req = urllib.request.Request(base + "/api/auth/token", data=data, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return str(json.loads(resp.read())["access_token"])


def probe(base: str, request: list[Any]) -> tuple[int, str]:
    """One request outside the load run: tells whether the endpoint exists on this branch."""
    method, path, headers, body = request
    req = urllib.request.Request(base + path, method=method, headers={
        **headers, **({"Content-Type": "application/json"} if body is not None else {})},
        data=body.encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read(300).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(300).decode(errors="replace")


@dataclass
class Pools:
    cotisations: list[str]
    organisations: list[str]
    # (id, amount still due) of unpaid dues, for the write path
    unpaid: list[tuple[str, str]]
    pending_adhesions: list[str]
    # organisation of each unpaid dues (PostgreSQL pools): S5_pay_pg_orgs spreads its payments over them
    organisation_of: dict[str, str] = field(default_factory=dict)


def spread_over_organisations(unpaid: list[tuple[str, str]], organisation_of: dict[str, str]
                              ) -> list[tuple[str, str]]:
    """``unpaid`` reordered round-robin over their organisations (first seen first): consecutive payments, hence
    concurrent ones, belong to different organisations as long as there are dues left in several of them."""
    queues: dict[str, list[tuple[str, str]]] = {}
    for item in unpaid:
        queues.setdefault(organisation_of.get(item[0], ""), []).append(item)
    spread: list[tuple[str, str]] = []
    rounds = max((len(q) for q in queues.values()), default=0)
    for i in range(rounds):
        spread += [q[i] for q in queues.values() if i < len(q)]
    return spread


# Adhesions the service can approve: pending, in an ACTIVE organisation. The generated data suspends one
# organisation in 97 (bench/datagen.py), whose adhesions the service refuses (400 invalid-state): drawing from them
# made S5_approve_pg answer 400 to about 1 % of its approvals (32 of 2,879 at 963ad4d).
PENDING_ADHESIONS = ("SELECT a.id FROM adhesion a JOIN organisation o ON o.id = a.organisation_id "
                     "WHERE a.statut = 'EN_ATTENTE' AND o.statut = 'ACTIVE'")


async def pg_pools(dsn: str, unpaid: int, adhesions: int) -> Pools:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        cot = [str(r[0]) for r in await conn.fetch(
            "SELECT id FROM cotisation TABLESAMPLE SYSTEM (1) REPEATABLE (42) LIMIT 5000")]
        orgs = [str(r[0]) for r in await conn.fetch("SELECT id FROM organisation WHERE statut = 'ACTIVE'")]
        rows = await conn.fetch(
            "SELECT id, montant_du - montant_paye, organisation_id FROM cotisation "
            "WHERE statut IN ('EN_ATTENTE', 'EN_RETARD') LIMIT $1", unpaid)
        due = [(str(r[0]), str(r[1])) for r in rows]
        organisation_of = {str(r[0]): str(r[2]) for r in rows}
        random.Random(3).shuffle(due)
        adh = [str(r[0]) for r in await conn.fetch(PENDING_ADHESIONS + " LIMIT $1", adhesions)]
        random.Random(4).shuffle(adh)
    finally:
        await conn.close()
    return Pools(cot, orgs, due, adh, organisation_of)


def sqlite_pools(path: str) -> Pools:
    import sqlite3
    import uuid

    conn = sqlite3.connect(path)
    try:
        def hexid(v: str) -> str:
            return str(uuid.UUID(v))

        cot = [hexid(r[0]) for r in conn.execute("SELECT id FROM cotisation LIMIT 2000")]
        orgs = [hexid(r[0]) for r in conn.execute("SELECT id FROM organisation")]
        due = [(hexid(r[0]), str(r[1])) for r in conn.execute(
            "SELECT id, montant_du - montant_paye FROM cotisation WHERE statut IN ('EN_ATTENTE', 'EN_RETARD') "
            "ORDER BY random()")]
        adh = [hexid(r[0]) for r in conn.execute(PENDING_ADHESIONS + " ORDER BY random()")]
    finally:
        conn.close()
    return Pools(cot, orgs, due, adh)
