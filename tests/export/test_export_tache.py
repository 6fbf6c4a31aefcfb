"""Exports over ``tache_seuil_export_lignes`` rows: 202 + Location, the scheduler writes the file with the
caller's visibility of the request, and only its creator (or a global role) downloads it."""

from __future__ import annotations

import asyncio
import io

import httpx
import pytest
from sqlalchemy import select

from tests.export.lecture_csv import by_first, parse_csv
from tests.factories.export import build
from unionflow.app import create_app
from unionflow.models import AuditLog, Tache
from unionflow.registres import Planificateur


@pytest.fixture
async def small_threshold(settings):
    tuned = create_app(settings.model_copy(update={"tache_seuil_export_lignes": 2}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=tuned), base_url="http://testserver") as http:
        yield tuned, http
    await tuned.state.engine.dispose()


async def _run_tasks(app) -> None:
    scheduler = Planificateur(app.state.engine, app.state.settings, jobs=[])
    await asyncio.gather(*await scheduler.tick())


async def test_a_large_export_runs_as_a_task_with_the_callers_scope(small_threshold, committed_db,
                                                                     committed_factory):
    app, client = small_threshold
    data = await build(committed_factory)
    await committed_db.commit()

    answer = await client.get("/api/export/cotisations", headers=data.treasurer.headers)
    assert answer.status_code == 202, answer.text
    body = answer.json()
    location = answer.headers["Location"]
    assert location == f"/api/jobs/{body['id']}"
    assert body["type"] == "EXPORT" and body["statut"] == "EN_ATTENTE" and body["total"] == 3
    fichier = f"{location}/fichier"
    # Not written yet: nothing to download.
    assert (await client.get(fichier, headers=data.treasurer.headers)).status_code == 404

    await _run_tasks(app)

    done = (await client.get(location, headers=data.treasurer.headers)).json()
    assert done["statut"] == "TERMINEE", done
    assert done["progression"] == 100 and done["traites"] == 3 and done["total"] == 3
    assert done["lienResultat"] == fichier
    assert done["resultat"]["lignes"] == 3 and done["resultat"]["format"] == "csv"
    on_disk = app.state.settings.data_dir / "exports" / f"{body['id']}.csv"
    assert on_disk.is_file()

    download = await client.get(fichier, headers=data.treasurer.headers)
    assert download.status_code == 200, download.text
    assert download.headers["content-type"].startswith("text/csv")
    disposition = download.headers["content-disposition"]
    assert disposition.startswith("attachment;") and "unionflow-cotisations-" in disposition
    rows = by_first(parse_csv(download.content))
    # The treasurer of Alpha sees Alpha's dues only, as in the synchronous export: not Beta's COT-X-4.
    assert sorted(rows) == ["COT-X-1", "COT-X-2", "COT-X-3"]
    assert download.content == on_disk.read_bytes()

    # Another user: neither the task nor its file; a global role: both.
    assert (await client.get(location, headers=data.member.headers)).status_code == 404
    assert (await client.get(fichier, headers=data.member.headers)).status_code == 404
    assert (await client.get(fichier, headers=data.secretary.headers)).status_code == 404
    assert (await client.get(fichier, headers=data.admin.headers)).status_code == 200
    assert (await client.get(fichier)).status_code == 401

    await committed_db.rollback()
    entries = (await committed_db.execute(select(AuditLog).where(AuditLog.type_action == "EXPORTER"))).scalars().all()
    assert len(entries) == 1  # the request audited the export; the task does not audit it again
    assert body["id"] in entries[0].description and entries[0].utilisateur == data.treasurer.user.email


async def test_a_large_xlsx_export_task_for_a_global_role(small_threshold, committed_db, committed_factory):
    from openpyxl import load_workbook

    app, client = small_threshold
    data = await build(committed_factory)
    await committed_db.commit()
    answer = await client.get("/api/export/cotisations?format=xlsx", headers=data.admin.headers)
    assert answer.status_code == 202, answer.text
    await _run_tasks(app)
    download = await client.get(f"{answer.headers['Location']}/fichier", headers=data.admin.headers)
    assert download.status_code == 200
    assert download.headers["content-type"] == \
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    sheet = load_workbook(io.BytesIO(download.content)).active
    refs = sorted(r[0] for r in sheet.iter_rows(min_row=2, values_only=True) if r[0] and r[0] != "Total")
    assert refs == ["COT-X-1", "COT-X-2", "COT-X-3", "COT-X-4"]
    # Not the treasurer's task: 404 for them.
    assert (await client.get(f"{answer.headers['Location']}/fichier",
                             headers=data.treasurer.headers)).status_code == 404


async def test_below_the_threshold_the_file_is_sent_at_once(small_threshold, committed_db, committed_factory):
    _app, client = small_threshold
    data = await build(committed_factory)
    await committed_db.commit()
    answer = await client.get("/api/export/paiements?statut=ECHOUE", headers=data.treasurer.headers)
    assert answer.status_code == 200, answer.text
    assert sorted(by_first(parse_csv(answer.content))) == ["REC-X-3"]
    await committed_db.rollback()
    assert (await committed_db.execute(select(Tache))).scalars().all() == []
