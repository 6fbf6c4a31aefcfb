"""Long work started from the console — dues generation and exports — comes at once when small, and becomes a
background task above the thresholds: the console sends the person to the task's page, which shows the progress,
then the result (the generation's counts, the export's file to download)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import func, select

from tests.console.connexion import PASSWORD, sign_in
from tests.factories.cotisations import cotisation
from unionflow.app import create_app
from unionflow.core.passwords import hash_password
from unionflow.models import Cotisation
from unionflow.registres import Planificateur


@pytest.fixture
async def tuned(settings):
    app = create_app(settings.model_copy(update={"tache_seuil_cotisations": 1, "tache_seuil_export_lignes": 1}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield app, http
    await app.state.engine.dispose()
    await app.state.principal_engine.dispose()


# Next year: generation charges only members whose membership has started (issue 20), and the factory's start today.
GENERATION = {"type": "MENSUELLE", "annee": "2027", "mois": "4", "montant": "2500", "echeance": "2027-04-30"}


async def test_small_generation_answers_at_once_and_a_second_run_creates_nothing(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    await factory.membre(org)
    csrf = await sign_in(client, tresorier, db)
    assert 'href="/console/cotisations/generer"' in (await client.get("/console/tresorerie")).text
    first = await client.post("/console/cotisations/generer", data={"csrf": csrf, **GENERATION})
    assert first.status_code == 200 and 'id="resultat"' in first.text and "2 créée(s)" in first.text
    again = await client.post("/console/cotisations/generer", data={"csrf": csrf, **GENERATION})
    assert "0 créée(s), 2 déjà générée(s)" in again.text
    count = await db.execute(select(func.count()).select_from(Cotisation).where(Cotisation.organisation_id == org.id))
    assert count.scalar_one() == 2


async def test_member_and_secretary_are_refused_generation_and_treasury_exports(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    forced = await client.post("/console/cotisations/generer", data={"csrf": csrf, **GENERATION})
    assert forced.status_code == 403 and "Accès refusé" in forced.text
    assert (await client.get("/console/exports/cotisations?format=csv")).status_code == 403
    assert (await db.execute(select(Cotisation))).first() is None
    client.cookies.clear()
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    await sign_in(client, secretaire, db)
    page = await client.get("/console/exports")
    assert page.status_code == 200 and "/console/exports/membres" in page.text
    assert "/console/exports/cotisations" not in page.text
    refused = await client.get("/console/exports/cotisations?format=csv")
    assert refused.status_code == 403
    registre = await client.get("/console/exports/membres?format=csv")
    assert registre.status_code == 200 and "text/csv" in registre.headers["content-type"]


async def _tick(app) -> None:
    await asyncio.gather(*await Planificateur(app.state.engine, app.state.settings, jobs=[]).tick())


async def test_large_generation_and_export_become_tasks_whose_pages_show_progress_and_result(
        tuned, committed_db, committed_factory):
    app, client = tuned
    org = await committed_factory.organisation()
    tresorier = await committed_factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await committed_factory.membre(org)
    tresorier.user.password_hash = hash_password(PASSWORD)
    await committed_db.commit()
    csrf = await sign_in(client, tresorier, None)
    started = await client.post("/console/cotisations/generer", data={"csrf": csrf, **GENERATION})
    assert started.status_code == 303 and started.headers["location"].startswith("/console/taches/"), started.text
    page = await client.get(started.headers["location"])
    assert "Génération des cotisations — En attente" in page.text and 'http-equiv="refresh"' in page.text
    await _tick(app)
    done = await client.get(started.headers["location"])
    assert "Génération des cotisations — Terminée" in done.text and "<dt>Créées</dt><dd>2</dd>" in done.text

    await cotisation(committed_db, membre, org, 3000, commit=True)
    export = await client.get("/console/exports/cotisations?format=csv")
    assert export.status_code == 303 and export.headers["location"].startswith("/console/taches/"), export.text
    task = export.headers["location"]
    assert "Export — " in (await client.get(task)).text
    await _tick(app)
    finished = await client.get(task)
    assert "Export — Terminée" in finished.text and f'href="{task}/fichier"' in finished.text
    fichier = await client.get(f"{task}/fichier")
    assert fichier.status_code == 200 and "attachment" in fichier.headers["content-disposition"]
    assert fichier.content.count(b"\n") >= 4  # header and the three dues
