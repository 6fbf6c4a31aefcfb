"""The read pass (core/passe_lecture.py): work that only reads runs once without a write transaction; work that
writes, declared or not, is run again from the start in the request's guarded transaction and its write kept."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import insert, select
from starlette.requests import Request

from unionflow.core.passe_lecture import LECTURE_SEULE, ecriture, lire_sinon_ecrire
from unionflow.models.base import utcnow
from unionflow.models.identite import LoginThrottle


def _request(app) -> Request:
    return Request({"type": "http", "app": app, "method": "POST", "path": "/api/ussd/callback", "headers": [],
                    "query_string": b""})


async def _lignes(db, key: str) -> int:
    return len((await db.execute(select(LoginThrottle).where(LoginThrottle.key == key))).all())


async def test_work_that_only_reads_runs_once_on_the_read_pass(app, db):
    passes: list[bool] = []

    async def travail(session):
        passes.append(bool(session.info.get(LECTURE_SEULE)))
        return (await session.execute(select(LoginThrottle.key).limit(1))).all()

    await lire_sinon_ecrire(_request(app), travail)
    assert passes == [True]


async def test_a_declared_write_is_made_once_in_the_write_transaction(app, db):
    key, passes = f"test:{uuid.uuid4().hex}", []

    async def travail(session):
        passes.append(bool(session.info.get(LECTURE_SEULE)))
        ecriture(session)
        session.add(LoginThrottle(key=key, window_start=utcnow(), failures=1))
        return "écrit"

    assert await lire_sinon_ecrire(_request(app), travail) == "écrit"
    assert passes == [True, False]
    assert await _lignes(db, key) == 1


async def _ajouter(session, key: str) -> None:
    session.add(LoginThrottle(key=key, window_start=utcnow(), failures=1))


async def _inserer(session, key: str) -> None:
    await session.execute(insert(LoginThrottle).values(key=key, window_start=utcnow(), failures=1))


@pytest.mark.parametrize("ecrire", [_ajouter, _inserer], ids=["change-left-on-an-object", "statement"])
async def test_an_undeclared_write_is_refused_on_the_read_pass_and_made_once(app, db, ecrire):
    """A change left on an object without a later query (the pass's closing flush refuses it), or an INSERT run
    through the session (refused as it is executed): neither is written by the read pass, neither is lost."""
    key, passes = f"test:{uuid.uuid4().hex}", []

    async def travail(session):
        passes.append(bool(session.info.get(LECTURE_SEULE)))
        await ecrire(session, key)

    await lire_sinon_ecrire(_request(app), travail)
    assert passes == [True, False]
    assert await _lignes(db, key) == 1
