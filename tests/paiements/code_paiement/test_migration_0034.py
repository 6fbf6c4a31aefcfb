"""Migration 0034 on a database that already holds dues: every one gets a valid, distinct payment code; the
downgrade removes the columns."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from tests.conftest import BACKEND, scratch_pg_database
from unionflow import models
from unionflow.core.code_paiement import est_valide
from unionflow.core.db import async_url
from unionflow.migrations.alembic import downgrade, upgrade

BEFORE = "0033_pin_ussd"


@pytest.fixture
def empty_database_url(tmp_path) -> Iterator[str]:
    if BACKEND != "postgresql":
        yield f"sqlite:///{tmp_path / 'migration-0034.db'}"
        return
    with scratch_pg_database("unionflow_migr37") as url:
        yield url


async def _load(url: str, nombre: int) -> None:
    engine = create_async_engine(async_url(url))
    now = datetime.now(UTC)
    membre, org = uuid.uuid4(), uuid.uuid4()
    try:
        async with engine.begin() as conn:
            await conn.execute(insert(models.Membre.__table__).values(
                id=membre, numero_membre="MBR-2026-000001", prenom="Awa", nom="Diop", statut="ACTIF",
                created_at=now, updated_at=now))
            await conn.execute(insert(models.Organisation.__table__).values(
                id=org, nom="Mutuelle", type_organisation="ASSOCIATION", statut="ACTIVE", pays="SN", devise="XOF",
                created_at=now, updated_at=now))
            t = models.Cotisation.__table__
            await conn.execute(insert(t), [{
                "id": uuid.uuid4(), "numero_reference": f"COT-2026-{n:08d}", "membre_id": membre,
                "organisation_id": org, "type_cotisation": "MENSUELLE", "annee": 2026, "mois": 1 + n % 12,
                "montant_du": Decimal("2500"), "montant_paye": Decimal("0"), "devise": "XOF",
                "date_echeance": date(2026, 1 + n % 12, 5), "statut": "EN_ATTENTE", "created_at": now,
                "updated_at": now} for n in range(nombre)])
    finally:
        await engine.dispose()


async def _codes(url: str) -> list[str | None]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(select(models.Cotisation.__table__.c.code_paiement))).scalars())
    finally:
        await engine.dispose()


def test_existing_dues_get_distinct_valid_codes(empty_database_url):
    url = empty_database_url
    upgrade(url, BEFORE)
    asyncio.run(_load(url, 2500))  # more than one batch of the backfill
    upgrade(url, "0034_reference_paiement")
    codes = asyncio.run(_codes(url))
    assert len(codes) == 2500 and len(set(codes)) == 2500
    assert all(c is not None and est_valide(c) for c in codes)
    downgrade(url, BEFORE)
    upgrade(url, "0034_reference_paiement")
