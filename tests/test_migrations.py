"""Migrations and models agree, and the revision graph has one head."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import insert, inspect, select, text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.conftest import BACKEND, scratch_pg_database
from unionflow import models
from unionflow.core.db import async_url
from unionflow.cotisations import synthese_sql
from unionflow.migrations.alembic import alembic_config, downgrade, upgrade


def test_one_linear_chain():
    """One head, and from 0005 on every revision has exactly one parent: a newcomer reads them in order."""
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    after_merge = [rev for rev in script.walk_revisions() if rev.revision >= "0005"]
    assert all(isinstance(rev.down_revision, str) for rev in after_merge)


async def test_migrated_schema_matches_the_models(app):
    def diff(connection):
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        return compare_metadata(context, models.Base.metadata)

    async with app.state.engine.connect() as connection:
        differences = await connection.run_sync(diff)
    assert differences == [], differences


def _dues(count: int) -> list[dict[str, object]]:
    rng = random.Random(13)
    orgs = [uuid.uuid4() for _ in range(3)]
    rows = []
    for n in range(count):
        du = Decimal(rng.randrange(100, 100_000)) / (100 if n % 3 else 1)
        statut = rng.choice(["EN_ATTENTE", "PARTIELLEMENT_PAYEE", "PAYEE", "EN_RETARD", "ANNULEE"])
        paye = {"PAYEE": du, "PARTIELLEMENT_PAYEE": (du / 2).quantize(Decimal("0.01"))}.get(statut, Decimal(0))
        rows.append({"id": uuid.uuid4(), "numero_reference": f"COT-M-{n:06d}", "membre_id": uuid.uuid4(),
                     "organisation_id": rng.choice(orgs), "type_cotisation": rng.choice(["MENSUELLE", "ANNUELLE"]),
                     "annee": rng.choice([2025, 2026]), "mois": rng.choice([None, 1, 2, 12]), "montant_du": du,
                     "montant_paye": paye, "devise": "XOF", "statut": statut,
                     "date_echeance": date(2026, 1, 1) + timedelta(days=rng.randrange(60)),
                     "created_at": datetime.now(UTC), "updated_at": datetime.now(UTC)})
    return rows


async def _load_and_read(url: str, rows: list[dict[str, object]] | None) -> dict[tuple, tuple]:
    """Inserts ``rows`` as raw dues (no member nor organisation rows: foreign keys off), returns the summary."""
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            if rows:
                if conn.dialect.name == "postgresql":
                    await conn.execute(text("SET LOCAL session_replication_role = replica"))
                await conn.execute(insert(models.Cotisation.__table__), rows)
                return {}
            summary = models.CotisationSynthese.__table__
            result = await conn.execute(select(summary).order_by(summary.c.id))
            return {(r.organisation_id, r.type_cotisation, r.statut, r.annee, r.mois, r.date_echeance):
                    (r.nombre, Decimal(r.montant_du), Decimal(r.montant_paye)) for r in result}
    finally:
        await engine.dispose()


async def _rebuild(url: str) -> None:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            for statement in synthese_sql.rebuild(conn.dialect.name):
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def _tables(url: str) -> set[str]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


@pytest.fixture
def empty_database_url(tmp_path) -> Iterator[str]:
    if BACKEND != "postgresql":
        yield f"sqlite:///{tmp_path / 'migrations.db'}"
        return
    with scratch_pg_database("unionflow_migr") as url:
        yield url


def test_the_summary_backfill_equals_the_rebuild_and_the_round_trip_holds(empty_database_url):
    """0013 on a database that already holds dues: its backfill is the GROUP BY of those dues, the rebuild gives
    the same rows, and downgrade/upgrade drops and restores everything."""
    url = empty_database_url
    upgrade(url, "0012_actions_audit")
    rows = _dues(400)
    asyncio.run(_load_and_read(url, rows))
    upgrade(url)
    expected: dict[tuple, list] = defaultdict(lambda: [0, Decimal(0), Decimal(0)])
    for row in rows:
        bucket = expected[tuple(row[k] for k in ("organisation_id", "type_cotisation", "statut", "annee", "mois",
                                                 "date_echeance"))]
        bucket[0] += 1
        bucket[1] += row["montant_du"]  # type: ignore[operator]
        bucket[2] += row["montant_paye"]  # type: ignore[operator]
    backfilled = asyncio.run(_load_and_read(url, None))
    assert backfilled == {k: tuple(v) for k, v in expected.items()}
    asyncio.run(_rebuild(url))
    assert asyncio.run(_load_and_read(url, None)) == backfilled

    downgrade(url, "0012_actions_audit")
    assert not {"cotisation_synthese", "cotisation_synthese_delta"} & asyncio.run(_tables(url))
    upgrade(url)
    assert asyncio.run(_load_and_read(url, None)) == backfilled


async def _sql(url: str, statements: list[tuple[object, object]]) -> list[tuple]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            result: list[tuple] = []
            for statement, params in statements:
                rows = await conn.execute(text(statement) if isinstance(statement, str) else statement, params)
                if rows.returns_rows:
                    result = [tuple(r) for r in rows]
            return result
    finally:
        await engine.dispose()


def test_member_links_gain_the_builtin_issuer_and_keep_their_memberships(empty_database_url):
    """0014 on a database holding a linked member with a membership: the link gets the built-in issuer, and the
    SQLite rebuild of ``membre`` keeps its memberships (a DROP under foreign keys would cascade to them)."""
    from unionflow.config import get_settings

    url = empty_database_url
    upgrade(url, "0013_synthese_cotisations")
    membre, org, sub = uuid.uuid4(), uuid.uuid4(), str(uuid.uuid4())
    now = datetime.now(UTC)
    stamps = {"created_at": now, "updated_at": now}
    membre_table = models.Membre.__table__
    old_membre = {"id": membre, "numero_membre": "MBR-M-1", "prenom": "Awa", "nom": "Diop", "statut": "ACTIF",
                  "user_sub": sub, **stamps}
    asyncio.run(_sql(url, [
        (insert(models.Organisation.__table__), {"id": org, "nom": "Association M", "type_organisation": "ASSOCIATION",
                                                 "statut": "ACTIVE", "pays": "SN", "devise": "XOF", **stamps}),
        (insert(membre_table).values({membre_table.c[k]: v for k, v in old_membre.items()}), None),
        (insert(models.MembreOrganisation.__table__), {"id": uuid.uuid4(), "membre_id": membre, "organisation_id": org,
                                                      "roles": ["MEMBRE"], "statut": "ACTIF",
                                                      "date_debut": date.today(), **stamps}),
    ]))
    upgrade(url)
    links = asyncio.run(_sql(url, [("SELECT user_iss, user_sub FROM membre", {})]))
    assert links == [(get_settings().issuer, sub)]
    assert asyncio.run(_sql(url, [("SELECT count(*) FROM membre_organisation", {})])) == [(1,)]
    # The same subject from another issuer is another person: it may be linked to another member.
    asyncio.run(_sql(url, [(insert(membre_table), {
        "id": uuid.uuid4(), "numero_membre": "MBR-M-2", "prenom": "Khady", "nom": "Fall", "statut": "ACTIF",
        "user_iss": "https://idp.example/", "user_sub": sub, **stamps})]))
    downgrade(url, "0013_synthese_cotisations")
    assert asyncio.run(_sql(url, [("SELECT count(*) FROM membre_organisation", {})])) == [(1,)]
    assert asyncio.run(_sql(url, [("SELECT user_sub FROM membre ORDER BY numero_membre", {})])) == [(sub,), (None,)]
    upgrade(url)


def test_rows_tied_to_a_person_gain_the_builtin_issuer(empty_database_url):
    """0017 prefixes the subjects stored by owned rows with the built-in issuer (the person key of core.auth),
    leaves an already keyed value alone, and its downgrade gives the subjects back."""
    from unionflow.config import get_settings
    from unionflow.core.auth import person_key

    url = empty_database_url
    upgrade(url, "0016_cloture_mensuelle")
    sub, now = str(uuid.uuid4()), datetime.now(UTC)
    asyncio.run(_sql(url, [
        (insert(models.Favori.__table__), {"id": uuid.uuid4(), "utilisateur_sub": sub, "type_cible": "MEMBRE",
                                           "cible_id": uuid.uuid4(), "created_at": now}),
        (insert(models.CleIdempotence.__table__), {"id": uuid.uuid4(), "cle": "k", "appelant": sub, "operation": "o",
                                                   "empreinte": "e", "created_at": now}),
    ]))
    upgrade(url)
    keyed = person_key(get_settings().issuer, sub)
    assert asyncio.run(_sql(url, [("SELECT utilisateur_sub FROM favori", {})])) == [(keyed,)]
    assert asyncio.run(_sql(url, [("SELECT appelant FROM cle_idempotence", {})])) == [(keyed,)]
    long_key = person_key("https://idp.example/" + "r" * 200, "s" * 255)
    asyncio.run(_sql(url, [("UPDATE cle_idempotence SET cle = 'k2'", {}), (insert(models.CleIdempotence.__table__), {
        "id": uuid.uuid4(), "cle": "k", "appelant": long_key, "operation": "o", "empreinte": "e", "created_at": now})]))
    downgrade(url, "0016_cloture_mensuelle")
    assert asyncio.run(_sql(url, [("SELECT appelant FROM cle_idempotence ORDER BY cle", {})])) == [
        ("s" * 255,), (sub,)]
    upgrade(url)


def test_a_version_1_notice_gains_its_digest_and_the_key_takes_the_text(empty_database_url):
    """0045 on a database holding a version 1 notice: the row gets the SHA-256 of its text; the key is then
    (purpose, version, digest), so a version has a text per organisation; the downgrade gives the former key back."""
    import hashlib

    url = empty_database_url
    notice = models.NoticeInformation.__table__
    upgrade(url, "0044_audit_auteur_date")
    texte = "Votre organisation enregistre votre appartenance syndicale (loi n° 2008-12)."
    asyncio.run(_sql(url, [(insert(notice), {"id": uuid.uuid4(), "finalite": "ADHESION_SYNDICALE", "version": 1,
                                             "texte": texte, "created_at": datetime.now(UTC)})]))
    upgrade(url)
    assert asyncio.run(_sql(url, [("SELECT empreinte FROM notice_information", {})])) == [
        (hashlib.sha256(texte.encode()).hexdigest(),)]
    for nom in ("A", "B"):  # one version, a text per organisation
        autre = f"Responsable du traitement: Syndicat {nom}."
        asyncio.run(_sql(url, [(insert(notice), {
            "id": uuid.uuid4(), "finalite": "ADHESION_SYNDICALE", "version": 2, "texte": autre,
            "empreinte": hashlib.sha256(autre.encode()).hexdigest(), "created_at": datetime.now(UTC)})]))
    downgrade(url, "0044_audit_auteur_date")
    assert asyncio.run(_sql(url, [("SELECT version, texte FROM notice_information", {})])) == [(1, texte)]
    upgrade(url)
