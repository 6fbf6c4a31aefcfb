"""The replica setting without a replica to start (tests/core/test_replica.py has the real one): absent, or with
SQLite, there is none, and SQLite says so at start-up."""

from __future__ import annotations

import logging

from unionflow.config import Settings
from unionflow.core.replica import creer_replica


def test_no_replica_unless_configured():
    assert creer_replica(Settings(database_url="postgresql://u@127.0.0.1:5432/db")) is None


def test_sqlite_ignores_the_replica_and_says_so(tmp_path, caplog):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/u.db",
                        database_replica_url="postgresql://u@127.0.0.1:5433/db")
    with caplog.at_level(logging.WARNING, logger="unionflow.replica"):
        assert creer_replica(settings) is None
    [record] = [r for r in caplog.records if r.name == "unionflow.replica"]
    assert record.getMessage() == "UNIONFLOW_DATABASE_REPLICA_URL ignoré: un réplica ne se lit qu'avec PostgreSQL"
