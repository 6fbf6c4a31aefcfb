"""``Idempotency-Key`` for payment-creating requests.

The key row is inserted at the start of the request's own transaction, under a unique constraint on
(caller, operation, key): a concurrent duplicate waits on that constraint until the first request commits,
then finds the stored answer. Same key + same body → the stored status and body; same key + another body →
422. Only successful answers are stored: a failed request rolls back its key with everything else, so the
client may retry it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from fastapi import Header
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidInput, UnprocessableIdempotency
from unionflow.models import CleIdempotence

MAX_KEY_LENGTH = 200

IDEMPOTENCY_HEADER = Header(None, alias="Idempotency-Key", max_length=MAX_KEY_LENGTH,
                            description="Même clé + même contenu → même réponse, un seul enregistrement; "
                                        "même clé + autre contenu → 422")


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
                 body: Any) -> None:
        if key is not None and not (0 < len(key.strip()) <= MAX_KEY_LENGTH):
            raise InvalidInput(f"Idempotency-Key doit contenir 1 à {MAX_KEY_LENGTH} caractères")
        self.session = session
        self.auth = auth
        self.operation = operation
        self.key = key.strip() if key else None
        self.hash = fingerprint(body)
        self.row: CleIdempotence | None = None

    async def _stored(self) -> CleIdempotence | None:
        return (await self.session.execute(select(CleIdempotence).where(
            CleIdempotence.appelant == self.auth.sub, CleIdempotence.operation == self.operation,
            CleIdempotence.cle == self.key))).scalar_one_or_none()

    def _replay(self, row: CleIdempotence) -> Reponse:
        if row.empreinte != self.hash:
            raise UnprocessableIdempotency("Cette Idempotency-Key a déjà servi pour une autre requête")
        assert row.statut_reponse is not None
        return Reponse(row.statut_reponse, row.corps_reponse, rejouee=True)

    async def begin(self) -> Reponse | None:
        """The stored answer when the key was already used, else ``None`` after reserving the key."""
        if self.key is None:
            return None
        existing = await self._stored()
        if existing is not None:
            return self._replay(existing)
        row = CleIdempotence(cle=self.key, appelant=self.auth.sub, operation=self.operation, empreinte=self.hash)
        try:
            async with self.session.begin_nested():
                self.session.add(row)
                await self.session.flush()
        except IntegrityError:
            # A concurrent request with the same key committed first (we waited on its unique-index entry).
            existing = await self._stored()
            if existing is None or existing.statut_reponse is None:
                raise
            return self._replay(existing)
        self.row = row
        return None

    async def finish(self, status: int, body: Any) -> Reponse:
        if self.row is not None:
            self.row.statut_reponse = status
            self.row.corps_reponse = body
            await self.session.flush()
        return Reponse(status, body)


def as_response(answer: Reponse) -> JSONResponse:
    headers = {"Idempotent-Replayed": "true"} if answer.rejouee else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)
