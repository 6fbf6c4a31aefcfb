"""Migration 0022_recherche_listes on a database that already holds local accounts and feedback: their search
keys are backfilled (accents and case removed), so the lists find the rows written before the upgrade; the
downgrade drops the columns and a new upgrade computes them again."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from tests.conftest import BACKEND, scratch_pg_database
from unionflow import models
from unionflow.core.db import async_url
from unionflow.migrations.alembic import downgrade, upgrade

BEFORE = "0021_durcir_personne"
REVISION = "0022_recherche_listes"
USER, FEEDBACK = uuid.uuid4(), uuid.uuid4()


@pytest.fixture
def empty_database_url(tmp_path) -> Iterator[str]:
    if BACKEND != "postgresql":
        yield f"sqlite:///{tmp_path / 'migration-0022.db'}"
        return
    with scratch_pg_database("unionflow_migr30") as url:
        yield url


async def _load(url: str) -> None:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            now = datetime.now(UTC)
            await conn.execute(insert(models.UtilisateurLocal.__table__).values(
                id=USER, email="elodie.seye@example.sn", username="elodie.seye@example.sn", prenom="Élodie",
                nom="SÈYE", enabled=True, email_verified=False, realm_roles=[], password_change_required=False,
                created_at=now, updated_at=now))
            await conn.execute(insert(models.Feedback.__table__).values(
                id=FEEDBACK, type_feedback="BUG", message="Le reçu n'est pas téléchargé", contexte="Écran Paiements",
                auteur_sub="iss|sub", auteur_nom="Élodie Sèye", traite=False, created_at=now))
    finally:
        await engine.dispose()


async def _keys(url: str) -> tuple[str, str]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            user = (await conn.execute(select(models.UtilisateurLocal.recherche))).scalar_one()
            feedback = (await conn.execute(select(models.Feedback.recherche))).scalar_one()
            return user, feedback
    finally:
        await engine.dispose()


def test_existing_rows_get_their_search_keys(empty_database_url):
    url = empty_database_url
    upgrade(url, BEFORE)
    asyncio.run(_load(url))
    upgrade(url, REVISION)
    keys = asyncio.run(_keys(url))
    assert keys == ("elodie.seye@example.sn elodie.seye@example.sn elodie seye",
                    "le recu n'est pas telecharge ecran paiements")
    downgrade(url, BEFORE)
    upgrade(url, REVISION)
    assert asyncio.run(_keys(url)) == keys
