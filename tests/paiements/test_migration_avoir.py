"""Migration 0025_avoir_mouvements on a database that already holds credit (a late Wave confirmation): each valid
payment with an unallocated amount gets its CREATION movement, so the ledger starts equal to the payments' credit;
cancelled payments and payments without credit get none. Down and up again gives the same ledger."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from tests.conftest import BACKEND, scratch_pg_database
from unionflow import models
from unionflow.core.db import async_url
from unionflow.migrations.alembic import downgrade, upgrade

BEFORE = "0021_durcir_personne"
MEMBRE, ORG = uuid.uuid4(), uuid.uuid4()


@pytest.fixture
def empty_database_url(tmp_path) -> Iterator[str]:
    if BACKEND != "postgresql":
        yield f"sqlite:///{tmp_path / 'migration-avoir.db'}"
        return
    with scratch_pg_database("unionflow_migr_avoir") as url:
        yield url


async def _load(url: str, paiements: list[dict]) -> None:
    engine = create_async_engine(async_url(url))
    now = datetime.now(UTC)
    try:
        async with engine.begin() as conn:
            await conn.execute(insert(models.Membre.__table__).values(
                id=MEMBRE, numero_membre="MBR-2026-000001", prenom="Awa", nom="Diop", statut="ACTIF",
                created_at=now, updated_at=now))
            await conn.execute(insert(models.Organisation.__table__).values(
                id=ORG, nom="Mutuelle", type_organisation="ASSOCIATION", statut="ACTIVE", pays="SN", devise="XOF",
                created_at=now, updated_at=now))
            for row in paiements:
                await conn.execute(insert(models.Paiement.__table__).values(**row))
    finally:
        await engine.dispose()


async def _ledger(url: str) -> list[tuple[str, str, Decimal]]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            m, p = models.MouvementAvoir.__table__, models.Paiement.__table__
            rows = await conn.execute(select(p.c.numero_recu, m.c.type_mouvement, m.c.montant)
                                      .join(p, p.c.id == m.c.paiement_id).order_by(p.c.numero_recu))
            return [(r[0], r[1], Decimal(r[2])) for r in rows]
    finally:
        await engine.dispose()


def test_existing_credit_enters_the_ledger(empty_database_url):
    url = empty_database_url
    upgrade(url, BEFORE)
    now = datetime.now(UTC)

    def paiement(numero: str, statut: str, non_affecte: str) -> dict:
        return {"id": uuid.uuid4(), "numero_recu": numero, "membre_id": MEMBRE, "organisation_id": ORG,
                "montant": Decimal("5000"), "montant_non_affecte": Decimal(non_affecte), "devise": "XOF",
                "methode": "WAVE", "statut": statut, "cle_verification": uuid.uuid4().hex, "created_at": now,
                "updated_at": now}

    asyncio.run(_load(url, [paiement("REC-2026-000001", "VALIDE", "2500"), paiement("REC-2026-000002", "VALIDE", "0"),
                            paiement("REC-2026-000003", "ANNULE", "1000")]))
    upgrade(url)
    ledger = asyncio.run(_ledger(url))
    assert ledger == [("REC-2026-000001", "CREATION", Decimal("2500"))]
    downgrade(url, BEFORE)
    upgrade(url)
    assert asyncio.run(_ledger(url)) == ledger
