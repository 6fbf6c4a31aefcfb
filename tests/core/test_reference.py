"""The per-worker cache of reference data (core/reference.py) never serves values older than a request's first
statement: a change through any session bumps the version row, and a worker that sees another version drops
its cache — including a change it did not make itself (another worker or host)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from tests.factories.cotisations import cotisation_a_venir
from unionflow.core import reference
from unionflow.models import AlerteLcbFt, Compteur, Paiement, ParametresLcbFt


async def _version(session) -> int:
    await session.commit()
    return int(await session.scalar(select(Compteur.valeur).where(Compteur.nom == reference.VERSION)) or 0)


async def _payer(client, treasurer, factory, member, org, montant: str = "7500") -> str:
    await factory.session.commit()  # SQLite: no read snapshot older than the writes made on other connections
    due = await cotisation_a_venir(factory, member.membre, org, montant=montant)
    response = await client.put(f"/api/cotisations/{due.id}/payer", json={"montant": montant},
                                headers=treasurer.headers)
    assert response.status_code == 200, response.text
    return response.json()["recu"]["paiementId"]


async def _alertes(session, paiement_id: str) -> list[str]:
    await session.commit()
    return list((await session.execute(select(AlerteLcbFt.type_alerte).where(
        AlerteLcbFt.paiement_id == uuid.UUID(paiement_id)))).scalars())


def _seuils(org_id: uuid.UUID, especes: str) -> dict[str, object]:
    return {"id": uuid.uuid4(), "organisation_id": org_id, "seuil_operation": Decimal("99999999"),
            "seuil_cumul": Decimal("99999999"), "periode_cumul_jours": 30, "seuil_especes": Decimal(especes),
            "devise": "XOF", "created_at": func.now(), "updated_at": func.now()}


async def _setup(client, committed_factory):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    for _ in range(2):  # opens the accounts, then fills the cache with the union-wide thresholds
        await _payer(client, treasurer, committed_factory, member, org)
    return org, treasurer, member


async def test_a_change_through_a_session_bumps_the_version_and_applies_to_the_next_payment(
        client, committed_factory, committed_db):
    org, treasurer, member = await _setup(client, committed_factory)
    before = await _version(committed_db)
    committed_db.add(ParametresLcbFt(**{k: v for k, v in _seuils(org.id, "1000").items()
                                        if k not in ("created_at", "updated_at")}))
    await committed_db.commit()
    assert await _version(committed_db) == before + 1

    paid = await _payer(client, treasurer, committed_factory, member, org)
    assert await _alertes(committed_db, paid) == ["ESPECES_ELEVEES"]


async def test_a_change_made_elsewhere_is_seen_through_the_version_row(app, client, committed_factory,
                                                                       committed_db):
    """Written on a bare connection, as another worker or host would: no event of this process runs, so only
    the version read by the maintenance gate can tell this worker its cache is stale."""
    org, treasurer, member = await _setup(client, committed_factory)
    engine = app.state.engine
    async with engine.begin() as conn:
        await conn.execute(insert(ParametresLcbFt.__table__).values(**_seuils(org.id, "1000")))
    # Without the version bump the worker keeps its cached (union-wide) thresholds: the cache is really used.
    kept = await _payer(client, treasurer, committed_factory, member, org)
    assert await _alertes(committed_db, kept) == []

    upsert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    async with engine.begin() as conn:
        stmt = upsert(Compteur).values(nom=reference.VERSION, valeur=1)
        await conn.execute(stmt.on_conflict_do_update(index_elements=[Compteur.nom],
                                                      set_={"valeur": Compteur.valeur + 1}))
    seen = await _payer(client, treasurer, committed_factory, member, org)
    assert await _alertes(committed_db, seen) == ["ESPECES_ELEVEES"]
    assert await committed_db.scalar(select(func.count()).select_from(Paiement).where(
        Paiement.organisation_id == org.id)) == 4
