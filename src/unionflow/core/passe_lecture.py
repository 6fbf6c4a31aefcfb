"""A read pass before the write transaction, for work that usually only reads but sometimes writes.

A phone gateway's callback (USSD) answers most screens by reading: the member's profiles, his PIN row, his
figures. Run in the request's write transaction, each answer paid three round trips of its own (BEGIN, the
maintenance gate, COMMIT) on top of its reads: about as many as the reads themselves. ``lire_sinon_ecrire`` runs
the work first on an autocommit session (no BEGIN, no gate, no COMMIT); the work declares each write before it
makes it (``ecriture``), and any flush or DML that slips through is refused the same way. On that signal the read
pass is dropped — nothing was written, nothing sent — and the work runs again from the start in the guarded
write transaction, as it always did. The work must therefore be computed from scratch and act outside (an SMS, a
checkout) only after ``ecriture``. Each read of the pass sees what was committed when it ran, like every
session-free read route (docs/decisions.md, "lectures")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import ORMExecuteState, Session
from starlette.requests import Request

from unionflow.core.db import autocommit_session, request_bind, request_transaction

T = TypeVar("T")
LECTURE_SEULE = "unionflow.passe_lecture"


class EcritureRequise(Exception):  # a signal between the read pass and its caller, not an error
    """The work must write: the read pass stops here and the work runs again in the write transaction."""


def ecriture(session: AsyncSession) -> None:
    """Called by the work before it writes or acts outside (an SMS, a payment checkout): stops a read pass."""
    if session.info.get(LECTURE_SEULE):
        raise EcritureRequise


def _refuser_flush(session: Session, *_args: Any) -> None:
    if session.new or session.dirty or session.deleted:
        raise EcritureRequise


def _refuser_dml(state: ORMExecuteState) -> None:
    if not state.is_select:
        raise EcritureRequise


@contextlib.asynccontextmanager
async def passe_lecture(request: Request) -> AsyncIterator[AsyncSession]:
    async with autocommit_session(request_bind(request)) as session:
        session.info[LECTURE_SEULE] = True
        event.listen(session.sync_session, "before_flush", _refuser_flush)
        event.listen(session.sync_session, "do_orm_execute", _refuser_dml)
        yield session
        # A change left on an object without a later query (no autoflush) would be lost: flushing refuses it.
        await session.flush()


async def lire_sinon_ecrire(request: Request, travail: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """``travail(session)`` on a read pass; again in the request's write transaction if it must write."""
    try:
        async with passe_lecture(request) as session:
            return await travail(session)
    except EcritureRequise:
        pass
    async with request_transaction(request) as session:
        return await travail(session)
