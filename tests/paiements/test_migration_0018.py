"""Migration 0017 on a database that already holds organisations and payments (issue 19): every organisation gets
its series code (same sigle → distinct codes, oldest first), received payments get who received them (the
treasurer who confirmed a declaration, from the audit trail), and existing receipt numbers are left as they
are."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from tests.conftest import BACKEND, scratch_pg_database
from unionflow import models
from unionflow.core.db import async_url
from unionflow.migrations.alembic import downgrade, upgrade

BEFORE = "0017_recherche_cle_sans_accents"
MEMBRE = uuid.uuid4()


@pytest.fixture
def empty_database_url(tmp_path) -> Iterator[str]:
    if BACKEND != "postgresql":
        yield f"sqlite:///{tmp_path / 'migration-0017.db'}"
        return
    with scratch_pg_database("unionflow_migr17") as url:
        yield url


async def _load(url: str, orgs: list[dict], paiements: list[dict], audits: list[dict]) -> None:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            now = datetime.now(UTC)
            await conn.execute(insert(models.Membre.__table__).values(
                id=MEMBRE, numero_membre="MBR-2026-000001", prenom="Awa", nom="Diop", statut="ACTIF",
                created_at=now, updated_at=now))
            organisation = models.Organisation.__table__
            paiement = models.Paiement.__table__
            audit = models.AuditLog.__table__
            for row in orgs:
                await conn.execute(insert(organisation).values(**row))
            for row in paiements:
                await conn.execute(insert(paiement).values(**row))
            for row in audits:
                await conn.execute(insert(audit).values(**row))
    finally:
        await engine.dispose()


async def _read(url: str) -> tuple[dict, dict]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            o, p = models.Organisation.__table__, models.Paiement.__table__
            codes = {r[0]: r[1] for r in await conn.execute(select(o.c.nom, o.c.code_serie))}
            recus = {r[0]: (r[1], r[2]) for r in await conn.execute(select(p.c.numero_recu, p.c.recu_par,
                                                                           p.c.reference_declaration))}
            return codes, recus
    finally:
        await engine.dispose()


def test_existing_organisations_get_codes_and_receipts_keep_their_numbers(empty_database_url):
    url = empty_database_url
    upgrade(url, BEFORE)
    now = datetime.now(UTC)
    org_ids = [uuid.uuid4() for _ in range(3)]
    orgs = [{"id": org_ids[0], "nom": "Union des Syndicats Autonomes", "created_at": now - timedelta(days=3)},
            {"id": org_ids[1], "nom": "Union Syndicale Autonome", "created_at": now - timedelta(days=2)},
            {"id": org_ids[2], "nom": "Mutuelle", "nom_court": "Mutuelle-Santé", "created_at": now}]
    for org in orgs:
        org.update(type_organisation="ASSOCIATION", statut="ACTIVE", pays="SN", devise="XOF", updated_at=now)
    confirmed = uuid.uuid4()

    def paiement(pid: uuid.UUID, numero: str, statut: str, par: str) -> dict:
        return {"id": pid, "numero_recu": numero, "membre_id": MEMBRE, "organisation_id": org_ids[0],
                "montant": Decimal("1000"), "montant_non_affecte": Decimal("0"), "devise": "XOF",
                "methode": "ESPECES", "statut": statut, "enregistre_par": par, "cle_verification": uuid.uuid4().hex,
                "created_at": now, "updated_at": now}

    paiements = [paiement(confirmed, "REC-2026-000001", "VALIDE", "membre@example.sn"),
                 paiement(uuid.uuid4(), "REC-2026-000002", "VALIDE", "tresorier@example.sn"),
                 paiement(uuid.uuid4(), "REC-2026-000003", "EN_ATTENTE", "membre@example.sn")]
    audits = [{"id": uuid.uuid4(), "type_action": "CONFIRMER", "module": "PAIEMENTS", "entite_type": "Paiement",
               "entite_id": str(confirmed), "utilisateur": "president@example.sn", "date_heure": now,
               "severite": "INFO"}]
    asyncio.run(_load(url, orgs, paiements, audits))

    upgrade(url)
    codes, recus = asyncio.run(_read(url))
    assert codes == {"Union des Syndicats Autonomes": "USA", "Union Syndicale Autonome": "USA2",
                     "Mutuelle": "MUTUELLE"}
    assert recus == {"REC-2026-000001": ("president@example.sn", None),
                     "REC-2026-000002": ("tresorier@example.sn", None),
                     "REC-2026-000003": (None, None)}

    downgrade(url, BEFORE)
    upgrade(url)
    assert asyncio.run(_read(url)) == (codes, recus)
