"""A real import over ``tache_seuil_import_lignes`` answers 202 and runs as a background task, in chunks of 500
lines: a duplicate is refused across chunks, refused lines are in the result, the file is removed at the end."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import func, select

from tests.imports.test_import_membres import URL, _csv, _post, _setup
from unionflow.app import create_app
from unionflow.imports.service import dossier_imports
from unionflow.models import AuditLog, Membre
from unionflow.registres import Planificateur


@pytest.fixture
async def small_threshold(settings):
    tuned = create_app(settings.model_copy(update={"tache_seuil_import_lignes": 3}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=tuned), base_url="http://testserver") as http:
        yield tuned, http
    await tuned.state.engine.dispose()


async def test_import_over_the_threshold_runs_as_a_task(small_threshold, committed_db, committed_factory, settings):
    app, client = small_threshold
    org, secretary = await _setup(committed_factory)
    org_id = org.id
    lignes = [f"Prénom{i};Nom{i};m{i}@lot.example.sn;;;;Dakar;" for i in range(1001)]
    lignes += ["Double;Zero;m0@lot.example.sn;;;;Dakar;", "Mauvais;Mail;pas-un-mail;;;;Dakar;"]
    contenu = _csv(lignes)

    dry = await _post(client, secretary.headers, org, contenu, True)
    assert dry.status_code == 200 and dry.json()["crees"] == 1001

    answer = await _post(client, secretary.headers, org, contenu, False)
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert answer.headers["Location"] == f"/api/jobs/{body['id']}"
    assert (body["type"], body["statut"], body["progression"], body["total"]) == ("IMPORT_MEMBRES", "EN_ATTENTE", 0,
                                                                                  1003)
    assert len(list(dossier_imports(settings.data_dir).iterdir())) == 1
    await committed_db.rollback()
    created = select(func.count()).select_from(Membre).where(Membre.email.like("%@lot.example.sn"))
    assert (await committed_db.execute(created)).scalar_one() == 0

    await asyncio.gather(*await Planificateur(app.state.engine, app.state.settings, jobs=[]).tick())

    done = (await client.get(answer.headers["Location"], headers=secretary.headers)).json()
    assert (done["statut"], done["progression"], done["traites"], done["total"]) == ("TERMINEE", 100, 1003, 1003)
    resultat = done["resultat"]
    assert (resultat["total"], resultat["crees"], resultat["refuses"], resultat["simulation"]) == (1003, 1001, 2, False)
    assert [(lg["ligne"], lg["action"]) for lg in resultat["lignes"]] == [(1003, "REFUSER"), (1004, "REFUSER")]
    assert resultat["lignes"][0]["motifs"] == ["doublon de la ligne 2 (e-mail)"]
    await committed_db.rollback()
    assert (await committed_db.execute(created)).scalar_one() == 1001
    assert list(dossier_imports(settings.data_dir).iterdir()) == []
    descriptions = (await committed_db.execute(select(AuditLog.description).where(
        AuditLog.type_action == "IMPORTER", AuditLog.organisation_id == org_id))).scalars().all()
    assert any("confié à la tâche" in d for d in descriptions)
    assert any(d.startswith("Import de membres (1003 lignes, tâche") for d in descriptions)
    # Below the threshold nothing changes: a small real import still answers 200 at once.
    small = await client.post(URL, headers=secretary.headers, data={"organisationId": str(org_id),
                                                                     "simulation": "false"},
                              files={"fichier": ("m.csv", _csv(["Ami;Un;ami1@lot.example.sn;;;;Thiès;"]), "text/csv")})
    assert small.status_code == 200 and small.json()["crees"] == 1
