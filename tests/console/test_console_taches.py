"""Long work shows its progress: a real import over the threshold becomes a task, whose page (GET /api/jobs/{id}
through the same service) reloads while it runs and shows the result when done."""

from __future__ import annotations

import asyncio
import base64
import re

import httpx
import pytest

from tests.console.connexion import PASSWORD, csrf_of, sign_in
from unionflow.app import create_app
from unionflow.core.passwords import hash_password
from unionflow.registres import Planificateur


@pytest.fixture
async def tuned(settings):
    app = create_app(settings.model_copy(update={"tache_seuil_import_lignes": 2}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield app, http
    await app.state.engine.dispose()
    await app.state.principal_engine.dispose()


async def test_large_import_runs_as_a_task_whose_page_shows_progress_and_result(tuned, committed_db,
                                                                                 committed_factory):
    app, client = tuned
    org = await committed_factory.organisation()
    secretaire = await committed_factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    curieux = await committed_factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    for actor in (secretaire, curieux):
        actor.user.password_hash = hash_password(PASSWORD)
    await committed_db.commit()
    csrf = await sign_in(client, secretaire, None)
    csv = ("prénom;nom;email\nAwa;Tall;awa.tall@tache.example.sn\nModou;Fall;modou.fall@tache.example.sn\n"
           "Binta;Kane;binta.kane@tache.example.sn\n").encode()
    dry = await client.post("/console/import", data={"csrf": csrf}, files={"fichier": ("m.csv", csv, "text/csv")})
    assert dry.status_code == 200 and "Simulation" in dry.text
    contenu = re.search(r'name="contenu" value="([^"]+)"', dry.text).group(1)
    assert base64.b64decode(contenu) == csv
    real = await client.post("/console/import", data={"csrf": csrf, "contenu": contenu})
    assert real.status_code == 303 and real.headers["location"].startswith("/console/taches/"), real.text
    page = await client.get(real.headers["location"])
    assert page.status_code == 200 and "Import de membres — En attente" in page.text
    assert '<meta http-equiv="refresh" content="3">' in page.text and 'value="0"' in page.text

    await asyncio.gather(*await Planificateur(app.state.engine, app.state.settings, jobs=[]).tick())

    done = await client.get(real.headers["location"])
    assert "Import de membres — Terminée" in done.text and 'value="100"' in done.text
    assert "http-equiv" not in done.text and "3 sur 3" in done.text and "<dt>Créé(e)s</dt><dd>3</dd>" in done.text
    # Someone else (even of the same organisation) does not see the task: the API's 404.
    client.cookies.clear()
    await sign_in(client, curieux, None)
    other = await client.get(real.headers["location"])
    assert other.status_code == 404 and "Page introuvable" in other.text
    assert csrf_of(other.text)
