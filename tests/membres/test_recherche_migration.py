"""0017 on a database that already holds members, organisations and events: the search key is backfilled with the
same function the models use, and downgrade/upgrade round-trips."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import Uuid, bindparam, text

from tests.test_migrations import _sql, empty_database_url  # noqa: F401  (fixture)
from unionflow.migrations.alembic import downgrade, upgrade

AVANT = "0016_cloture_mensuelle"


def _sql_ids(sql: str) -> object:
    """``sql`` with its uuid parameters typed (SQLite's driver takes no UUID object)."""
    return text(sql).bindparams(*(bindparam(n, type_=Uuid()) for n in ("id", "org") if f":{n}" in sql))


def test_the_key_is_backfilled(empty_database_url):  # noqa: F811
    url = empty_database_url
    upgrade(url, AVANT)
    now = datetime.now(UTC).replace(tzinfo=None)
    org, stamps = uuid.uuid4(), {"c": now, "u": now}
    ids = [uuid.uuid4() for _ in range(3)]
    statements: list[tuple[object, object]] = [(_sql_ids(
        "INSERT INTO organisation (id, nom, nom_court, ville, type_organisation, statut, pays, devise, created_at, "
        "updated_at) VALUES (:id, 'Mutuelle de Thiès', 'MTÈ', 'Kébémer', 'ASSOCIATION', 'ACTIVE', 'SN', 'XOF', :c, "
        ":u)"), {"id": org, **stamps}), (_sql_ids(
        "INSERT INTO evenement (id, titre, description, type_evenement, date_debut, date_fin, lieu, devise, "
        "inscription_requise, visibilite, organisation_id, statut, liste_attente_active, created_at, updated_at) "
        "VALUES (:id, 'Atelier Épargne', NULL, 'FORMATION', :c, :f, 'Thiès', 'XOF', false, 'MEMBRES', :org, "
        "'PLANIFIE', false, :c, :u)"), {"id": uuid.uuid4(), "org": org, "f": now + timedelta(hours=1), **stamps})]
    for n, (membre_id, prenom) in enumerate(zip(ids, ["Élodie", "ÉLOÏSE", "Cœur"], strict=True)):
        statements.append((_sql_ids(
            "INSERT INTO membre (id, numero_membre, prenom, nom, email, telephone, statut, created_at, updated_at) "
            "VALUES (:id, :num, :prenom, 'Sèye', NULL, '+221771234567', 'ACTIF', :c, :u)"),
            {"id": membre_id, "num": f"MBR-M-{n}", "prenom": prenom, **stamps}))
    asyncio.run(_sql(url, statements))
    upgrade(url)
    cles = asyncio.run(_sql(url, [("SELECT recherche FROM membre ORDER BY numero_membre", {})]))
    assert cles == [("elodie seye +221771234567",), ("eloise seye +221771234567",), ("coeur seye +221771234567",)]
    assert asyncio.run(_sql(url, [("SELECT recherche FROM organisation", {})])) == [("mutuelle de thies mte kebemer",)]
    assert asyncio.run(_sql(url, [("SELECT recherche FROM evenement", {})])) == [("atelier epargne thies",)]
    downgrade(url, AVANT)
    upgrade(url)
    assert asyncio.run(_sql(url, [("SELECT count(*) FROM membre WHERE recherche LIKE '%seye%'", {})])) == [(3,)]
