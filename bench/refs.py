"""Reference apps served by uvicorn with the same worker count as the service, so results are ratios.

- ``bare``: Starlette returning a constant JSON document (framework + server ceiling).
- ``pg``: raw asyncpg running the SQL the service needs for get-by-id, a naive paged list
  (``LIMIT`` + exact ``count(*)``), paying a dues and approving an adhesion (one transaction each): like-for-like
  (``bench/refs_complets.py``: the same rows as the service) and "minimal" (``…-minimal`` paths: the lock, the
  row changes and one audit entry, the references before issue 12).
- ``sqlite``: the same write transactions with raw aiosqlite (``BEGIN IMMEDIATE``), same file format.

Started as ``uvicorn bench.refs:<factory> --factory``; configured by ``BENCH_REF_DSN`` / ``BENCH_REF_SQLITE``.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench import refs_complets

COLUMNS = ("id, numero_reference, membre_id, organisation_id, type_cotisation, libelle, annee, mois, montant_du, "
           "montant_paye, devise, date_echeance, date_paiement, statut, methode_paiement, reference_paiement, "
           "observations, created_at, updated_at")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _json(row: Any) -> dict[str, Any]:
    return {_camel(k): (str(v) if isinstance(v, uuid.UUID | Decimal) else
                        v.isoformat() if hasattr(v, "isoformat") else v) for k, v in dict(row).items()}


def _problem(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"status": status, "detail": detail}, status_code=status,
                        media_type="application/problem+json")


async def _complet(work: Any) -> Response:
    """Run a like-for-like transaction (bench/refs_complets.py); its refusals roll it back."""
    try:
        status, body = await work
    except LookupError as exc:
        return _problem(404, str(exc))
    except ValueError as exc:
        return _problem(409, str(exc))
    return JSONResponse(body, status_code=status)


async def _live(_: Request) -> JSONResponse:
    return JSONResponse({"status": "UP"})


def create_bare() -> Starlette:
    return Starlette(routes=[Route("/health/live", _live)])


def create_pg() -> Starlette:
    import asyncpg

    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        state["pool"] = await asyncpg.create_pool(os.environ["BENCH_REF_DSN"], min_size=10, max_size=10)
        state["comptes"] = refs_complets.ComptesPg()
        yield
        await state["pool"].close()

    async def get_one(request: Request) -> Response:
        try:
            cid = uuid.UUID(request.path_params["id"])
        except ValueError:
            return _problem(400, "id invalide")
        row = await state["pool"].fetchrow(f"SELECT {COLUMNS} FROM cotisation WHERE id = $1", cid)
        return JSONResponse(_json(row)) if row else _problem(404, "Cotisation introuvable")

    async def naive_list(request: Request) -> Response:
        page, size = int(request.query_params.get("page", 0)), int(request.query_params.get("size", 20))
        async with state["pool"].acquire() as conn:
            rows = await conn.fetch(f"SELECT {COLUMNS} FROM cotisation ORDER BY created_at, id LIMIT $1 OFFSET $2",
                                    size, page * size)
            total = await conn.fetchval("SELECT count(*) FROM cotisation")
        return JSONResponse({"content": [_json(r) for r in rows], "page": page, "size": size,
                             "totalElements": total})

    async def pay(request: Request) -> Response:
        cid = uuid.UUID(request.path_params["id"])
        montant = Decimal(str((await request.json())["montant"]))
        async with state["pool"].acquire() as conn:
            return await _complet(refs_complets.pay_pg(conn, state["comptes"], cid, montant,
                                                       request.headers.get("idempotency-key") or str(uuid.uuid4())))

    async def approve(request: Request) -> Response:
        async with state["pool"].acquire() as conn:
            return await _complet(refs_complets.approve_pg(conn, uuid.UUID(request.path_params["id"])))

    async def pay_minimal(request: Request) -> Response:
        cid = uuid.UUID(request.path_params["id"])
        montant = Decimal(str((await request.json())["montant"]))
        now = datetime.now(UTC)
        async with state["pool"].acquire() as conn, conn.transaction():
            row = await conn.fetchrow("SELECT id, membre_id, organisation_id, montant_du, montant_paye, statut "
                                      "FROM cotisation WHERE id = $1 FOR UPDATE", cid)
            if row is None:
                return _problem(404, "Cotisation introuvable")
            if row["statut"] in ("PAYEE", "ANNULEE"):
                return _problem(409, "Cotisation déjà réglée")
            applied = min(montant, row["montant_du"] - row["montant_paye"])
            paid = row["montant_paye"] + applied
            statut = "PAYEE" if paid >= row["montant_du"] else "PARTIELLEMENT_PAYEE"
            pid = uuid.uuid4()
            await conn.execute(
                "INSERT INTO paiement (id, numero_recu, membre_id, organisation_id, montant, montant_non_affecte, "
                "devise, methode, statut, date_paiement, enregistre_par, cle_verification, created_at, updated_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, 'XOF', 'ESPECES', 'VALIDE', $7, 'bench', $8, $7, $7)",
                pid, f"REC-REF-{pid.hex[:20]}", row["membre_id"], row["organisation_id"], montant,
                montant - applied, now, pid.hex[:16])
            await conn.execute("INSERT INTO paiement_allocation (id, paiement_id, cotisation_id, montant) "
                               "VALUES ($1, $2, $3, $4)", uuid.uuid4(), pid, cid, applied)
            await conn.execute("UPDATE cotisation SET montant_paye = $2, statut = $3, date_paiement = $4, "
                               "methode_paiement = 'ESPECES', updated_at = $4 WHERE id = $1", cid, paid, statut, now)
            await conn.execute(
                "INSERT INTO audit_log (id, date_heure, utilisateur, type_action, module, entite_type, entite_id, "
                "description, details, severite) VALUES ($1, $2, 'bench', 'PAIEMENT', 'COTISATIONS', 'Cotisation', "
                "$3, 'Paiement', $4, 'INFO')", uuid.uuid4(), now, str(cid),
                json.dumps({"montant": str(montant), "statut": statut}))
        return JSONResponse({"id": str(cid), "statut": statut, "montantPaye": str(paid)})

    async def approve_minimal(request: Request) -> Response:
        aid = uuid.UUID(request.path_params["id"])
        now = datetime.now(UTC)
        async with state["pool"].acquire() as conn, conn.transaction():
            row = await conn.fetchrow("SELECT id, statut FROM adhesion WHERE id = $1 FOR UPDATE", aid)
            if row is None:
                return _problem(404, "Adhésion introuvable")
            if row["statut"] != "EN_ATTENTE":
                return _problem(400, "Adhésion non en attente")
            await conn.execute("UPDATE adhesion SET statut = 'APPROUVEE', date_approbation = $2, approuve_par = "
                               "'bench', updated_at = $2 WHERE id = $1", aid, now)
            await conn.execute(
                "INSERT INTO audit_log (id, date_heure, utilisateur, type_action, module, entite_type, entite_id, "
                "description, severite) VALUES ($1, $2, 'bench', 'APPROBATION', 'ADHESIONS', 'Adhesion', $3, "
                "'Approbation', 'INFO')", uuid.uuid4(), now, str(aid))
        return JSONResponse({"id": str(aid), "statut": "APPROUVEE"})

    return Starlette(lifespan=lifespan, routes=[
        Route("/health/live", _live), Route("/cotisations/{id}", get_one), Route("/cotisations", naive_list),
        Route("/cotisations/{id}/payer", pay, methods=["PUT"]),
        Route("/adhesions/{id}/approuver", approve, methods=["POST"]),
        Route("/cotisations/{id}/payer-minimal", pay_minimal, methods=["PUT"]),
        Route("/adhesions/{id}/approuver-minimal", approve_minimal, methods=["POST"]),
    ])


def create_sqlite() -> Starlette:
    import aiosqlite

    pool: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        for _ in range(5):
            conn = await aiosqlite.connect(os.environ["BENCH_REF_SQLITE"], isolation_level=None)
            # synchronous=FULL as the service (core/db.py): a commit is on disk before it is acknowledged.
            for pragma in ("foreign_keys=ON", "journal_mode=WAL", "synchronous=FULL", "busy_timeout=30000"):
                await conn.execute(f"PRAGMA {pragma}")
            pool.put_nowait(conn)
        yield
        while not pool.empty():
            await pool.get_nowait().close()

    def ts(value: datetime) -> str:
        return value.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")

    async def transaction(work: Any) -> Response:
        conn = await pool.get()
        try:
            await conn.execute("BEGIN IMMEDIATE")
            try:
                response = await work(conn)
                await conn.execute("COMMIT" if response.status_code < 300 else "ROLLBACK")
                return response
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
        finally:
            pool.put_nowait(conn)

    comptes = refs_complets.ComptesSqlite()

    async def pay(request: Request) -> Response:
        cid = uuid.UUID(request.path_params["id"]).hex
        montant = Decimal(str((await request.json())["montant"]))
        key = request.headers.get("idempotency-key") or str(uuid.uuid4())
        return await transaction(lambda conn: _complet(refs_complets.pay_sqlite(conn, comptes, cid, montant, key)))

    async def approve(request: Request) -> Response:
        aid = uuid.UUID(request.path_params["id"]).hex
        return await transaction(lambda conn: _complet(refs_complets.approve_sqlite(conn, aid)))

    async def pay_minimal(request: Request) -> Response:
        cid = uuid.UUID(request.path_params["id"]).hex
        montant = Decimal(str((await request.json())["montant"]))
        now = ts(datetime.now(UTC))

        async def work(conn: aiosqlite.Connection) -> Response:
            cur = await conn.execute("SELECT membre_id, organisation_id, montant_du, montant_paye, statut "
                                     "FROM cotisation WHERE id = ?", (cid,))
            row = await cur.fetchone()
            if row is None:
                return _problem(404, "Cotisation introuvable")
            membre, org, du, deja, statut = row
            if statut in ("PAYEE", "ANNULEE"):
                return _problem(409, "Cotisation déjà réglée")
            applied = min(montant, Decimal(str(du)) - Decimal(str(deja)))
            paid = Decimal(str(deja)) + applied
            statut = "PAYEE" if paid >= Decimal(str(du)) else "PARTIELLEMENT_PAYEE"
            pid = uuid.uuid4().hex
            await conn.execute(
                "INSERT INTO paiement (id, numero_recu, membre_id, organisation_id, montant, montant_non_affecte, "
                "devise, methode, statut, date_paiement, enregistre_par, cle_verification, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, 'XOF', 'ESPECES', 'VALIDE', ?, 'bench', ?, ?, ?)",
                (pid, f"REC-REF-{pid[:20]}", membre, org, str(montant), str(montant - applied), now, pid[:16], now,
                 now))
            await conn.execute("INSERT INTO paiement_allocation (id, paiement_id, cotisation_id, montant) "
                               "VALUES (?, ?, ?, ?)", (uuid.uuid4().hex, pid, cid, str(applied)))
            await conn.execute("UPDATE cotisation SET montant_paye = ?, statut = ?, date_paiement = ?, "
                               "methode_paiement = 'ESPECES', updated_at = ? WHERE id = ?",
                               (str(paid), statut, now, now, cid))
            await conn.execute(
                "INSERT INTO audit_log (id, date_heure, utilisateur, type_action, module, entite_type, entite_id, "
                "description, details, severite) VALUES (?, ?, 'bench', 'PAIEMENT', 'COTISATIONS', 'Cotisation', "
                "?, 'Paiement', ?, 'INFO')",
                (uuid.uuid4().hex, now, cid, json.dumps({"montant": str(montant), "statut": statut})))
            return JSONResponse({"id": cid, "statut": statut, "montantPaye": str(paid)})

        return await transaction(work)

    async def approve_minimal(request: Request) -> Response:
        aid = uuid.UUID(request.path_params["id"]).hex
        now = ts(datetime.now(UTC))

        async def work(conn: aiosqlite.Connection) -> Response:
            cur = await conn.execute("SELECT statut FROM adhesion WHERE id = ?", (aid,))
            row = await cur.fetchone()
            if row is None:
                return _problem(404, "Adhésion introuvable")
            if row[0] != "EN_ATTENTE":
                return _problem(400, "Adhésion non en attente")
            await conn.execute("UPDATE adhesion SET statut = 'APPROUVEE', date_approbation = ?, approuve_par = "
                               "'bench', updated_at = ? WHERE id = ?", (now, now, aid))
            await conn.execute(
                "INSERT INTO audit_log (id, date_heure, utilisateur, type_action, module, entite_type, entite_id, "
                "description, severite) VALUES (?, ?, 'bench', 'APPROBATION', 'ADHESIONS', 'Adhesion', ?, "
                "'Approbation', 'INFO')", (uuid.uuid4().hex, now, aid))
            return JSONResponse({"id": aid, "statut": "APPROUVEE"})

        return await transaction(work)

    return Starlette(lifespan=lifespan, routes=[
        Route("/health/live", _live), Route("/cotisations/{id}/payer", pay, methods=["PUT"]),
        Route("/adhesions/{id}/approuver", approve, methods=["POST"]),
        Route("/cotisations/{id}/payer-minimal", pay_minimal, methods=["PUT"]),
        Route("/adhesions/{id}/approuver-minimal", approve_minimal, methods=["POST"]),
    ])
