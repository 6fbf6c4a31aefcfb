"""Heavy reads on a real streaming replica (core/replica.py): a primary and its replica started for this module
(tests/core/replica_grappe.py), the real app configured with both, over httpx. The replica is made to lag
deterministically by pausing its replay (``pg_wal_replay_pause``), not by sleeping."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY

from tests.core.replica_grappe import Grappe, absents, grappe
from tests.factories import Actor, Factory
from tests.factories.comptabilite import compte, ecriture, journal
from unionflow.app import create_app
from unionflow.auth import keys
from unionflow.config import Settings
from unionflow.core.replica import creer_replica
from unionflow.migrations.alembic import upgrade

pytestmark = [pytest.mark.postgresql_only, pytest.mark.skipif(absents() is not None, reason=absents() or "")]

TODAY = datetime.now(UTC).date().isoformat()


def lectures_replica() -> float:
    return REGISTRY.get_sample_value("unionflow_replica_reads_total") or 0.0


def replis(raison: str) -> float:
    return REGISTRY.get_sample_value("unionflow_replica_fallback_total", {"raison": raison}) or 0.0


@pytest.fixture(scope="module")
async def paire() -> AsyncIterator[Grappe]:
    async with grappe() as started:
        # Alembic runs its own event loop: in a thread, outside this one.
        await asyncio.to_thread(upgrade, started.url_primaire)
        await started.rattrapee()
        yield started


@pytest.fixture(scope="module")
async def replica_app(paire: Grappe, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FastAPI]:
    settings = Settings(database_url=paire.url_primaire, database_replica_url=paire.url_replica,
                        data_dir=tmp_path_factory.mktemp("replica-data"), public_base_url="http://testserver",
                        argon2_time_cost=1, argon2_memory_cost=1024, database_replica_max_lag_seconds=60)
    application = create_app(settings)
    async with application.state.sessionmaker() as session:
        await keys.ensure_signing_key(session)
        await session.commit()
    # Measured at every read: each test changes the replica's state and reads right after.
    application.state.replica.etat_secondes = 0
    yield application
    for engine in (application.state.engine, application.state.principal_engine, application.state.replica.engine):
        await engine.dispose()


@pytest.fixture
async def http(replica_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=replica_app), base_url="http://testserver") as c:
        yield c


@dataclass
class Livres:
    """An organisation's books: a treasurer who writes in them, a president who only reads them."""

    org_id: uuid.UUID
    tresorier: Actor
    president: Actor
    corps: dict[str, Any]


@pytest.fixture
async def livres(replica_app: FastAPI, http: httpx.AsyncClient, paire: Grappe) -> Livres:
    async with replica_app.state.sessionmaker() as session:
        factory = Factory(session, replica_app.state.settings, commit=True)
        org = await factory.organisation()
        tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
        president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    charge = await compte(http, tresorier.headers, org.id, "6222", "Locations de bâtiments")
    produit = await compte(http, tresorier.headers, org.id, "758", "Produits divers")
    od = await journal(http, tresorier.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    corps = ecriture(od["id"], [(charge["id"], "1000", "0"), (produit["id"], "0", "1000")], TODAY)
    await paire.rattrapee()
    return Livres(org.id, tresorier, president, corps)


async def charges(http: httpx.AsyncClient, lecteur: Actor, org_id: uuid.UUID) -> Decimal:
    """The period's debits of account 6222 in the trial balance ``lecteur`` is given."""
    response = await http.get(f"/api/comptabilite/etats/balance?organisationId={org_id}", headers=lecteur.headers)
    assert response.status_code == 200, response.text
    return sum((Decimal(ligne["debitPeriode"]) for ligne in response.json()["lignes"]
                if ligne["numeroCompte"] == "6222"), Decimal(0))


async def passer(http: httpx.AsyncClient, livres: Livres) -> None:
    response = await http.post("/api/comptabilite/ecritures", headers=livres.tresorier.headers, json=livres.corps)
    assert response.status_code == 200, response.text


@pytest.fixture
async def en_pause(paire: Grappe) -> AsyncIterator[Grappe]:
    await paire.pause()
    try:
        yield paire
    finally:
        await paire.reprise()


async def test_a_statement_is_read_from_the_replica(http, livres, en_pause):
    await passer(http, livres)  # on the primary, not replayed by the paused replica
    servies = lectures_replica()
    assert await charges(http, livres.president, livres.org_id) == 0
    assert lectures_replica() == servies + 1
    export = await http.get(f"/api/export/ecritures?organisationId={livres.org_id}",
                            headers=livres.president.headers)
    assert export.status_code == 200, export.text
    assert "Pièce test" not in export.text  # the file's rows come from the replica too
    await en_pause.reprise()
    assert await charges(http, livres.president, livres.org_id) == 1000


async def test_the_writer_reads_his_write_while_the_replica_is_paused(http, livres, en_pause):
    await passer(http, livres)
    recentes = replis("ecriture_recente")
    assert await charges(http, livres.tresorier, livres.org_id) == 1000  # the primary: his write is not replayed
    assert replis("ecriture_recente") == recentes + 1
    assert await charges(http, livres.president, livres.org_id) == 0  # the replica, for someone else


async def test_a_replica_behind_the_bound_sends_the_read_to_the_primary(http, livres, en_pause, replica_app, caplog):
    replica = replica_app.state.replica
    await passer(http, livres)
    replica.retard_max = 0.2
    try:
        # The last replayed transaction is older than the bound (replay is paused): polled, not slept.
        await en_pause.attendre("clock_timestamp() - pg_last_xact_replay_timestamp() > interval '0.3 s'",
                                en_pause.port_replica)
        retards = replis("retard")
        with caplog.at_level(logging.WARNING, logger="unionflow.replica"):
            assert await charges(http, livres.president, livres.org_id) == 1000
    finally:
        replica.retard_max = 60
    assert replis("retard") == retards + 1
    [record] = [r for r in caplog.records if r.name == "unionflow.replica"]
    assert record.getMessage() == "réplica en retard: lectures sur le primaire"
    assert record.raison == "retard" and record.retardSecondes > 0.2


async def test_a_stopped_replica_sends_the_read_to_the_primary_at_once(http, livres, paire, caplog):
    await passer(http, livres)
    await paire.rattrapee()
    await asyncio.to_thread(paire.pg_ctl, "replica", "stop")
    try:
        indisponibles = replis("indisponible")
        debut = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="unionflow.replica"):
            assert await charges(http, livres.president, livres.org_id) == 1000
        assert time.monotonic() - debut < 2.5  # the replica check is bounded (core/replica.py, DELAI_SECONDES)
        assert replis("indisponible") == indisponibles + 1
        [record] = [r for r in caplog.records if r.name == "unionflow.replica"]
        assert record.getMessage() == "réplica injoignable: lectures sur le primaire"
        assert record.raison == "indisponible"
    finally:
        await asyncio.to_thread(paire.pg_ctl, "replica", "start")
        await paire.attendre("pg_is_in_recovery()", paire.port_replica)
        await paire.rattrapee()
    assert await charges(http, livres.president, livres.org_id) == 1000


async def test_a_query_error_on_the_replica_runs_the_read_again_on_the_primary(http, livres, paire, replica_app,
                                                                                caplog):
    """A real error of the replica's: its account may read the audit log (the read-your-writes check) but not
    the books, so the statement's query fails there; the route runs again on the primary."""
    await paire.sql(paire.port_primaire, "DROP ROLE IF EXISTS lecteur_restreint")
    await paire.sql(paire.port_primaire, "CREATE ROLE lecteur_restreint LOGIN")
    await paire.sql(paire.port_primaire, "GRANT SELECT ON audit_log TO lecteur_restreint")
    await passer(http, livres)
    await paire.rattrapee()
    normal = replica_app.state.replica
    restreint = creer_replica(replica_app.state.settings.model_copy(update={
        "database_replica_url": paire.url(paire.port_replica, "lecteur_restreint")}))
    assert restreint is not None
    restreint.etat_secondes = 0
    replica_app.state.replica = restreint
    try:
        erreurs = replis("erreur")
        with caplog.at_level(logging.WARNING, logger="unionflow.replica"):
            assert await charges(http, livres.president, livres.org_id) == 1000
        assert replis("erreur") == erreurs + 1
        [record] = [r for r in caplog.records if r.name == "unionflow.replica"]
        assert record.getMessage() == "erreur du réplica pendant une lecture: reprise sur le primaire"
        assert "permission denied" in record.erreur
    finally:
        replica_app.state.replica = normal
        await restreint.engine.dispose()


async def test_a_replica_stopping_after_its_measure_costs_the_reader_nothing(http, livres, paire, replica_app):
    """The measure is kept a second per process: a replica stopped within it fails under the route itself (its
    pooled connection is dead), and the route runs again on the primary."""
    await passer(http, livres)
    await paire.rattrapee()
    replica = replica_app.state.replica
    replica.etat_secondes = 60
    try:
        servies = lectures_replica()
        assert await charges(http, livres.president, livres.org_id) == 1000  # measured, kept, served
        assert lectures_replica() == servies + 1
        await asyncio.to_thread(paire.pg_ctl, "replica", "stop")
        erreurs = replis("erreur")
        assert await charges(http, livres.president, livres.org_id) == 1000
        assert replis("erreur") == erreurs + 1
    finally:
        replica.etat_secondes = 0
        await asyncio.to_thread(paire.pg_ctl, "replica", "start")
        await paire.attendre("pg_is_in_recovery()", paire.port_replica)
        await paire.rattrapee()
