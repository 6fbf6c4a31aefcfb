"""Long work as background tasks: dues generation above the threshold answers 202 + Location, the scheduler runs
it, and ``GET /api/jobs/{id}`` shows its progress and result to its creator (and global roles) only."""

from __future__ import annotations

import asyncio
import uuid
from datetime import date, timedelta

import httpx
import pytest
from sqlalchemy import func, select, update

from tests.factories.cotisations import treasury
from unionflow.app import create_app
from unionflow.models import AuditLog, Cotisation, Tache
from unionflow.models.base import utcnow
from unionflow.registres import Planificateur
from unionflow.tasks.repository import TacheRepository


def _generation(org) -> dict:
    # Next year: memberships start today and dues follow the membership (issue 20).
    annee = date.today().year + 1
    return {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": annee, "mois": 5,
            "montant": "2500", "dateEcheance": str(date(annee, 5, 31))}


@pytest.fixture
async def small_threshold(settings):
    tuned = create_app(settings.model_copy(update={"tache_seuil_cotisations": 2}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=tuned), base_url="http://testserver") as http:
        yield tuned, http
    await tuned.state.engine.dispose()


async def _refresh(session) -> None:
    await session.rollback()  # a fresh snapshot: the scheduler commits on its own connection


async def test_generation_over_the_threshold_runs_as_a_task(small_threshold, committed_db, committed_factory):
    app, client = small_threshold
    org, treasurer, _a, _b = await treasury(committed_factory)  # three active members: over 2
    org_id = org.id
    # The treasurer of another organisation: the task is not theirs.
    stranger = await committed_factory.actor(["USER"], organisation=await committed_factory.organisation(),
                                             org_roles=["MEMBRE", "TRESORIER"])
    admin = await committed_factory.actor(["ADMIN"], with_membre=False)

    answer = await client.post("/api/cotisations/generer", headers=treasurer.headers, json=_generation(org))
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert answer.headers["Location"] == f"/api/jobs/{body['id']}"
    assert body["statut"] == "EN_ATTENTE" and body["progression"] == 0 and body["total"] == 3
    assert body["type"] == "GENERATION_COTISATIONS" and body["resultat"] is None
    await _refresh(committed_db)
    assert (await committed_db.execute(select(func.count()).select_from(Cotisation))).scalar_one() == 0

    location = answer.headers["Location"]
    assert (await client.get(location, headers=treasurer.headers)).json()["statut"] == "EN_ATTENTE"
    assert (await client.get(location, headers=stranger.headers)).status_code == 404
    assert (await client.get(location, headers=admin.headers)).status_code == 200
    assert (await client.get(location)).status_code == 401

    scheduler = Planificateur(app.state.engine, app.state.settings, jobs=[])
    await asyncio.gather(*await scheduler.tick())

    done = (await client.get(location, headers=treasurer.headers)).json()
    assert done["statut"] == "TERMINEE" and done["progression"] == 100 and done["traites"] == 3
    assert done["resultat"] == {"membresActifs": 3, "creees": 3, "ignorees": 0, "horsAdhesion": 0,
                                "message": f"3 cotisation(s) créée(s), 0 déjà existante(s) pour "
                                           f"05/{date.today().year + 1}"}
    assert done["dateDebut"] is not None and done["dateFin"] is not None
    await _refresh(committed_db)
    assert (await committed_db.execute(select(func.count()).select_from(Cotisation)
                                       .where(Cotisation.organisation_id == org_id))).scalar_one() == 3
    descriptions = (await committed_db.execute(select(AuditLog.description).where(
        AuditLog.type_action == "GENERER"))).scalars().all()
    assert any("confiée à la tâche" in d for d in descriptions)
    assert any(d.startswith("3 cotisation(s) créée(s)") and body["id"] in d for d in descriptions)
    # Nothing left to run.
    assert await scheduler.tick() == []


async def test_below_the_threshold_the_answer_stays_synchronous(small_threshold, committed_db, committed_factory):
    _app, client = small_threshold
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    answer = await client.post("/api/cotisations/generer", headers=treasurer.headers, json=_generation(org))
    assert answer.status_code == 200 and answer.json()["creees"] == 1
    await _refresh(committed_db)
    assert (await committed_db.execute(select(func.count()).select_from(Tache))).scalar_one() == 0


async def test_a_task_left_by_a_crashed_runner_is_taken_over_and_progress_is_bounded(
        small_threshold, committed_db, committed_factory):
    app, client = small_threshold
    org, treasurer, _a, _b = await treasury(committed_factory)
    answer = await client.post("/api/cotisations/generer", headers=treasurer.headers, json=_generation(org))
    tache_id = uuid.UUID(answer.json()["id"])
    # A runner claimed it, then died: its lease is running, then has passed.
    await _refresh(committed_db)
    await committed_db.execute(update(Tache).values(statut="EN_COURS", verrouillee_par="mort:1",
                                                    verrouillee_jusqua=utcnow() + timedelta(minutes=5)))
    await committed_db.commit()
    scheduler = Planificateur(app.state.engine, app.state.settings, jobs=[])
    assert await scheduler.tick() == []
    await committed_db.execute(update(Tache).values(verrouillee_jusqua=utcnow() - timedelta(seconds=1)))
    await committed_db.commit()
    await asyncio.gather(*await scheduler.tick())
    assert (await client.get(f"/api/jobs/{tache_id}", headers=treasurer.headers)).json()["statut"] == "TERMINEE"

    await _refresh(committed_db)
    repo = TacheRepository(committed_db, None)
    await repo.avancer(tache_id, 3, 3, utcnow())
    await committed_db.commit()
    row = await committed_db.get(Tache, tache_id, populate_existing=True)
    assert row is not None and row.progression == 99  # 100 only once TERMINEE


async def test_a_backup_of_a_large_database_finishes_in_a_task(settings, committed_db, committed_factory):
    tuned = create_app(settings.model_copy(update={"tache_seuil_sauvegarde_octets": 1}))
    admin = await committed_factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=tuned), base_url="http://testserver") as c:
            answer = await c.post("/api/backups", headers=admin.headers, json={"nom": "Avant l'AG"})
            assert answer.status_code == 202, answer.text
            tache = answer.json()
            assert tache["type"] == "SAUVEGARDE" and answer.headers["Location"] == f"/api/jobs/{tache['id']}"
            listed = (await c.get("/api/backups", headers=admin.headers)).json()
            assert [(b["nom"], b["statut"]) for b in listed] == [("Avant l'AG", "EN_COURS")]

            scheduler = Planificateur(tuned.state.engine, tuned.state.settings, jobs=[])
            await asyncio.gather(*await scheduler.tick())

            done = (await c.get(answer.headers["Location"], headers=admin.headers)).json()
            assert done["statut"] == "TERMINEE", done
            backup = (await c.get(done["lienResultat"], headers=admin.headers)).json()
            assert backup["statut"] == "TERMINEE" and backup["tailleOctets"] > 0
            assert done["resultat"]["sauvegardeId"] == backup["id"]
    finally:
        await tuned.state.engine.dispose()
