"""``Idempotency-Key`` for every request that moves money: one mechanism, declared on each operation.

A route takes ``idem: IdempotentRequest = IDEMPOTENT`` and returns ``await idem.run(auth, call, status)``.
The key row is inserted at the start of the request's own transaction, under a unique constraint on
(caller, operation, key): a concurrent duplicate waits on that constraint until the first request commits,
then finds the stored answer. The operation is the route template (``PUT /api/cotisations/{id}/payer``) and
the fingerprint covers path parameters, query string and body, so the same key sent for another dues or
another amount is a different request. Same key + same request → the stored status and body (header
``Idempotent-Replayed: true``); same key + another request → 422. Only successful answers are stored: a failed
request rolls back its key with everything else, so the client may retry it.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import Depends, Header, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import Table, bindparam, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.db import SessionDep
from unionflow.core.errors import Conflict, InvalidInput, UnprocessableIdempotency
from unionflow.models import CleIdempotence
from unionflow.models.base import utcnow

MAX_KEY_LENGTH = 200

# Not blank: a key of spaces is refused (400), and the schema says so.
IDEMPOTENCY_HEADER = Header(None, alias="Idempotency-Key", min_length=1, max_length=MAX_KEY_LENGTH, pattern=r"\S",
                            description="Recommandé. Même clé + même requête → même réponse, un seul "
                                        "enregistrement; même clé + autre requête → 422")


_TABLE = cast(Table, CleIdempotence.__table__)
# Written as text on purpose: SQLAlchemy 2.0's dialect INSERT … ON CONFLICT has no cache key, so it was compiled
# again at every payment; a text statement is compiled once. Same SQL on PostgreSQL and SQLite (≥ 3.35).
_RESERVER = text(
    "INSERT INTO cle_idempotence (id, cle, appelant, operation, empreinte, created_at)"
    " VALUES (:id, :cle, :appelant, :operation, :empreinte, :created_at)"
    " ON CONFLICT (appelant, operation, cle) DO NOTHING RETURNING id"
).bindparams(*(bindparam(c, type_=_TABLE.c[c].type)
               for c in ("id", "cle", "appelant", "operation", "empreinte", "created_at")))

# The stored answer, built once (the key row is never an object of the session: nothing to synchronise).
_REPONDRE = update(_TABLE).where(_TABLE.c.id == bindparam("cle_id")).values(
    statut_reponse=bindparam("statut", type_=_TABLE.c.statut_reponse.type),
    corps_reponse=bindparam("corps", type_=_TABLE.c.corps_reponse.type))


def fingerprint(body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class Reponse:
    status: int
    body: Any
    rejouee: bool = False


class Idempotence:
    def __init__(self, session: AsyncSession, auth: AuthContext, operation: str, key: str | None,
                 empreinte: str) -> None:
        if key is not None and not (0 < len(key.strip()) <= MAX_KEY_LENGTH):
            raise InvalidInput(f"Idempotency-Key doit contenir 1 à {MAX_KEY_LENGTH} caractères")
        self.session = session
        self.auth = auth
        self.operation = operation
        self.key = key.strip() if key else None
        self.hash = empreinte
        self.row: CleIdempotence | None = None

    async def _stored(self) -> CleIdempotence | None:
        return (await self.session.execute(select(CleIdempotence).where(
            CleIdempotence.appelant == self.auth.personne, CleIdempotence.operation == self.operation,
            CleIdempotence.cle == self.key))).scalar_one_or_none()

    def _replay(self, row: CleIdempotence) -> Reponse:
        if row.empreinte != self.hash:
            raise UnprocessableIdempotency("Cette Idempotency-Key a déjà servi pour une autre requête")
        assert row.statut_reponse is not None
        return Reponse(row.statut_reponse, row.corps_reponse, rejouee=True)

    async def begin(self) -> Reponse | None:
        """The stored answer when the key was already used, else ``None`` after reserving the key.

        One statement in the usual case: the insert skips a key that exists (``ON CONFLICT DO NOTHING``,
        which waits for a concurrent request holding the same key to commit or roll back), and only then is
        the stored answer read."""
        if self.key is None:
            return None
        row = CleIdempotence(id=uuid.uuid4(), cle=self.key, appelant=self.auth.personne, operation=self.operation,
                             empreinte=self.hash, created_at=utcnow())
        reserved = (await self.session.execute(_RESERVER, {
            "id": row.id, "cle": row.cle, "appelant": row.appelant, "operation": row.operation,
            "empreinte": row.empreinte, "created_at": row.created_at})).first()
        if reserved is None:
            existing = await self._stored()
            if existing is None or existing.statut_reponse is None:
                raise Conflict("Cette Idempotency-Key est utilisée par une requête en cours")
            return self._replay(existing)
        self.row = row
        return None

    async def finish(self, status: int, body: Any) -> Reponse:
        if self.row is not None:
            await self.session.execute(_REPONDRE, {"cle_id": self.row.id, "statut": status, "corps": body})
        return Reponse(status, body)


def as_response(answer: Reponse) -> JSONResponse:
    headers = {"Idempotent-Replayed": "true"} if answer.rejouee else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)


@dataclass
class IdempotentRequest:
    """One request that moves money, as the key table knows it: the route template as operation and the
    fingerprint of its path parameters, query string and body. Built from an API request (``IDEMPOTENT``) or
    from a console form (``for_form``): both doors share the table, the operation names and the answers."""

    session: AsyncSession
    operation: str
    key: str | None
    empreinte: str

    @classmethod
    def for_form(cls, session: AsyncSession, operation: str, key: str | None, body: Any = None,
                 path: dict[str, Any] | None = None) -> IdempotentRequest:
        """A console form's request under the form's key. ``operation`` is the API route's own
        (``"POST /api/paiements/{id}/confirmer"``), ``path`` its path parameters, ``body`` the JSON body the API
        would receive: a resubmitted form (double click, reload) gets the first answer back, a key reused for
        another form is refused as the API refuses it (422)."""
        empreinte = fingerprint({"path": {k: str(v) for k, v in (path or {}).items()}, "query": [],
                                 "body": jsonable_encoder(body)})
        return cls(session, operation, key, empreinte)

    async def answer(self, auth: AuthContext, call: Callable[[], Awaitable[BaseModel]],
                     status: int | Callable[[BaseModel], int] = 200) -> Reponse:
        """The stored answer for a replayed key, else run ``call`` once and store its answer.
        ``status`` may depend on the answer (a request that only opened a pending one answers 202)."""
        idem = Idempotence(self.session, auth, self.operation, self.key, self.empreinte)
        replay = await idem.begin()
        if replay is not None:
            return replay
        result = await call()
        body = jsonable_encoder(result.model_dump(mode="json", by_alias=True))
        return await idem.finish(status(result) if callable(status) else status, body)

    async def run(self, auth: AuthContext, call: Callable[[], Awaitable[BaseModel]],
                  status: int | Callable[[BaseModel], int] = 200) -> JSONResponse:
        """``answer`` as the API's response (header ``Idempotent-Replayed: true`` on a replay)."""
        return as_response(await self.answer(auth, call, status))


async def _idempotent_request(request: Request, session: SessionDep,
                              key: str | None = IDEMPOTENCY_HEADER) -> IdempotentRequest:
    route = request.scope.get("route")
    template = getattr(route, "path", request.url.path)
    raw = await request.body()
    try:
        body: Any = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", errors="replace")
    empreinte = fingerprint({"path": request.path_params, "query": sorted(request.query_params.multi_items()),
                             "body": body})
    return IdempotentRequest(session, f"{request.method} {template}", key, empreinte)


IDEMPOTENT: Any = Depends(_idempotent_request)
