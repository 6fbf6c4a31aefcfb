"""The session-free read path (docs/architecture.md, "Read path"): its prebuilt statements see exactly the rows
the ORM repositories see, for every visibility shape; its connection sends no BEGIN/COMMIT; deep pages seek
from recent keyset anchors with the same rows as OFFSET."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import event, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from tests.core.test_repository import caller
from tests.factories import Factory
from tests.factories.cotisations import cotisation_a_venir
from unionflow.config import get_settings
from unionflow.core import read_paging
from unionflow.core.cache import cached
from unionflow.core.db import autocommit_connection, autocommits, sqlite_write_intent
from unionflow.core.pagination import PageParams
from unionflow.cotisations import lectures as cotisations_lecture
from unionflow.cotisations.repository import CotisationFilters, CotisationRepository
from unionflow.cotisations.schemas import StatistiquesResponse
from unionflow.cotisations.service import today_utc
from unionflow.models import Cotisation, Organisation
from unionflow.organisations import lectures as organisations_lecture
from unionflow.organisations.repository import OrganisationFilters, OrganisationRepository
from unionflow.paiements.encaissement.workflow import StatutCotisation


async def _ids(db: AsyncSession, stmt: Any, values: dict[str, Any] | None = None) -> set[uuid.UUID]:
    """Ids of a Core statement's rows (named parameters bound with ``values``) or of an ORM select's entities."""
    result = await db.execute(stmt, values or {})
    if values is None:
        return {entity.id for entity in result.scalars()}
    return {row.id for row in result.all()}


async def test_prebuilt_statements_see_what_the_repositories_see(db: AsyncSession, factory: Factory) -> None:
    org_a, org_b = await factory.organisation(), await factory.organisation()
    suspended = await factory.organisation(statut="SUSPENDUE")
    member = await factory.membre(org_a)
    other = await factory.membre(org_b)
    await factory.membre(suspended)
    own_in_b = await cotisation_a_venir(factory, member, org_b)
    rows = [await cotisation_a_venir(factory, member, org_a), own_in_b, await cotisation_a_venir(factory, other, org_b),
            await cotisation_a_venir(factory, other, org_a, statut="PAYEE")]
    callers = {
        "admin": caller(realm={"ADMIN"}),
        "tresorier A": caller(membre_id=uuid.uuid4(), memberships={org_a.id: frozenset({"MEMBRE", "TRESORIER"})}),
        "membre": caller(realm={"MEMBRE"}, membre_id=member.id, memberships={org_a.id: frozenset({"MEMBRE"})}),
        "tresorier A et membre B": caller(membre_id=member.id, memberships={
            org_a.id: frozenset({"TRESORIER"}), org_b.id: frozenset({"MEMBRE"})}),
        "membre de la suspendue": caller(realm={"MEMBRE"}, membre_id=uuid.uuid4(),
                                         memberships={suspended.id: frozenset({"MEMBRE"})}),
        "sans rôle": caller(realm={"USER"}),
        "système": None,
    }
    seen_somewhere = set()
    for name, auth in callers.items():
        repo = CotisationRepository(db, auth, today_utc())  # type: ignore[arg-type]
        expected = await _ids(db, repo.select())
        seen = CotisationRepository.visibility(auth)
        core = cotisations_lecture._base(seen.shape, cotisations_lecture.FilterKey(), False)
        assert await _ids(db, core, {**seen.values}) == expected, name
        for row in rows:
            by_id = await _ids(db, cotisations_lecture._by_id(seen.shape), {**seen.values, "id": row.id})
            assert by_id == ({row.id} & expected), name
        seen_somewhere |= expected

        org_repo = OrganisationRepository(db, auth)  # type: ignore[arg-type]
        org_seen = OrganisationRepository.visibility(auth)
        org_core = organisations_lecture._base(org_seen.shape, frozenset())
        assert await _ids(db, org_core, {**org_seen.values}) == await _ids(db, org_repo.select()), name
    assert {r.id for r in rows} <= seen_somewhere
    # The shapes really differ: a treasurer of A sees neither B's dues nor the suspended organisation.
    tresorier = callers["tresorier A"]
    seen = CotisationRepository.visibility(tresorier)
    visible = await _ids(db, cotisations_lecture._base(seen.shape, cotisations_lecture.FilterKey(), False),
                         {**seen.values})
    assert own_in_b.id not in visible and rows[0].id in visible
    org_seen = OrganisationRepository.visibility(tresorier)
    assert suspended.id not in await _ids(db, organisations_lecture._base(org_seen.shape, frozenset()),
                                          {**org_seen.values})


async def test_filtered_lists_match_the_orm_path(db: AsyncSession, factory: Factory) -> None:
    org = await factory.organisation(region="Dakar")
    member = await factory.membre(org)
    await cotisation_a_venir(factory, member, org, annee=2025, mois=1, statut="PAYEE")
    await cotisation_a_venir(factory, member, org, annee=2025, mois=2, echeance=today_utc().replace(year=2020))
    await cotisation_a_venir(factory, member, org, annee=2026, type_cotisation="ANNUELLE")
    admin = caller(realm={"ADMIN"})
    connection = await db.connection()
    for filters in (CotisationFilters(annee=2025), CotisationFilters(statut=StatutCotisation.EN_RETARD),
                    CotisationFilters(membre_id=member.id, type_cotisation="ANNUELLE"),
                    CotisationFilters(statut=StatutCotisation.EN_ATTENTE, organisation_id=org.id)):
        page = await cotisations_lecture.CotisationLecture(connection, admin).search(filters, PageParams(0, 50))
        orm_rows, total, _ = await CotisationRepository(db, admin, today_utc()).search(filters, PageParams(0, 50))
        assert [c.id for c in page.content] == [c.id for c in orm_rows], filters
        assert page.total_elements == total
    listed = await organisations_lecture.OrganisationLecture(connection, admin).search(
        OrganisationFilters(region="Dakar", q=org.nom[-6:]), PageParams(0, 20))
    assert [o.id for o in listed.content] == [org.id]


async def test_autocommit_connection_sends_no_begin(app: FastAPI) -> None:
    engine = app.state.engine
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement.strip().upper())

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        token = sqlite_write_intent.set(True)  # a write request around it must not leak BEGIN IMMEDIATE in
        try:
            async with autocommit_connection(engine) as connection:
                assert not sqlite_write_intent.get()
                assert autocommits(connection)
                if engine.dialect.name == "postgresql":
                    # Each statement its own transaction (asyncpg sends BEGIN outside the cursor events).
                    first, second = [(await connection.execute(text("SELECT txid_current()"))).scalar_one()
                                     for _ in range(2)]
                    assert first != second
                else:
                    assert (await connection.execute(select(1))).scalar_one() == 1
                    assert not connection.sync_connection.connection.driver_connection.in_transaction  # type: ignore[union-attr]
            assert sqlite_write_intent.get()
        finally:
            sqlite_write_intent.reset(token)
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)
    assert not [s for s in sent if s.startswith(("BEGIN", "COMMIT", "SAVEPOINT"))], sent
    # The pooled connection is back to ordinary transactions for the next session.
    async with app.state.sessionmaker() as session:
        assert (await session.execute(select(1))).scalar_one() == 1
        assert session.in_transaction()


async def test_deep_pages_seek_from_recent_anchors(app: FastAPI, committed_factory: Factory,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_paging, "DEFERRED_JOIN_MIN_OFFSET", 3)
    read_paging.anchors.clear()
    for n in range(12):
        await committed_factory.organisation(nom=f"Ancre {n:02d}")
    table = Organisation.__table__
    base = select(*table.c).where(table.c.nom.like("Ancre %"))
    order = (table.c.nom, table.c.id)

    totals = []

    async def page(number: int) -> list[str]:
        async with autocommit_connection(app.state.engine) as connection:
            rows, total, exact = await read_paging.paginate_rows(connection, base, order, table.c.id, {},
                                                                 PageParams(number, 3))
        totals.append((total, exact))
        return [r.nom for r in rows]

    expected = {n: [f"Ancre {i:02d}" for i in range(3 * n, 3 * n + 3)] for n in range(4)}
    assert await page(1) == expected[1]  # offset 3: deep here, anchors recorded
    assert {offset for (_group, offset) in read_paging.anchors.entries} == {3, 5}
    assert await page(1) == expected[1]  # from the anchor at offset 3
    assert await page(2) == expected[2]  # from the previous page's last row
    assert await page(3) == expected[3]
    assert set(totals) == {(12, True)}

    # A row inserted before the anchors: positions lag it until the anchors expire (ANCHOR_SECONDS).
    await committed_factory.organisation(nom="Ancre 00a")
    assert await page(2) == expected[2]
    read_paging.anchors.clear()
    assert await page(2) == ["Ancre 05", "Ancre 06", "Ancre 07"]
    assert totals[-1] == (13, True)


async def test_reads_inside_a_transaction_keep_nothing(db: AsyncSession, factory: Factory,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_paging, "DEFERRED_JOIN_MIN_OFFSET", 1)
    read_paging.anchors.clear()
    org = await factory.organisation()
    member = await factory.membre(org)
    for _ in range(3):
        await cotisation_a_venir(factory, member, org)
    connection = await db.connection()
    admin = caller(realm={"ADMIN"})
    page = await cotisations_lecture.CotisationLecture(connection, admin).search(CotisationFilters(),
                                                                                 PageParams(1, 1))
    assert page.content and not read_paging.anchors.entries
    assert (await db.execute(select(Cotisation.id).where(Cotisation.id == page.content[0].id))).scalar_one()


async def test_cached_results_are_stored_from_an_autocommit_session(app: FastAPI, committed_db: AsyncSession,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A read session (ReadSession) has no transaction to hold a savepoint: the cache row is written by its one
    statement, and the next read finds it."""
    monkeypatch.setattr(get_settings(), "statistics_cache_seconds", 30)
    admin = caller(realm={"ADMIN"})
    computed = []

    async def compute() -> StatistiquesResponse:
        computed.append(1)
        return StatistiquesResponse(nombre_total=len(computed), par_statut={}, montant_du=0, montant_collecte=0,
                                    montant_restant=0, montant_en_retard=0, taux_recouvrement=0)

    for _ in range(2):
        async with autocommit_connection(app.state.engine) as connection, AsyncSession(bind=connection) as session:
            result = await cached(session, "test.lecture.", admin, StatistiquesResponse, compute)
            assert result.nombre_total == 1
    assert computed == [1]
