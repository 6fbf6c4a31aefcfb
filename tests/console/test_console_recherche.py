"""The secretary's screens over the same services as the API (issue 22): the register's search ignores accents and
case, the import's dry-run report shows shared phones line by line, then the real run (inline or as a background
task) imports those lines and lists them again."""

from __future__ import annotations

import asyncio
import re
import uuid

import httpx
import pytest

from tests.console.connexion import PASSWORD, sign_in
from unionflow.app import create_app
from unionflow.core.passwords import hash_password
from unionflow.registres import Planificateur


async def test_searching_elodie_finds_elodie_whatever_the_accents(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    marker = uuid.uuid4().hex[:6]
    elodie = await factory.membre(org, prenom="Elodie", nom=f"Sarr{marker}")
    eloise = await factory.membre(org, prenom="Éloïse", nom=f"Sarr{marker}")
    await sign_in(client, secretaire, db)
    for q in ("élodie", "Élodie", "ELODIE"):
        page = await client.get("/console/membres", params={"q": f"{q} {marker}"})
        assert page.status_code == 200, page.text
        assert f"/membres/{elodie.id}" in page.text and f"/membres/{eloise.id}" not in page.text, q
        assert "1 membre<" in page.text
    both = await client.get("/console/membres", params={"q": f"sarr{marker}"})
    assert f"/membres/{elodie.id}" in both.text and f"/membres/{eloise.id}" in both.text and "2 membres" in both.text


async def test_the_dry_run_report_flags_shared_phones_line_by_line(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    csrf = await sign_in(client, secretaire, db)
    marker = uuid.uuid4().hex[:6]
    csv = (f"prénom;nom;téléphone\nAwa;Kane{marker};77 555 00 01\nBinta;Kane{marker};77 555 00 01\n"
           f"Ousmane;Sy{marker};77123\n").encode()
    report = await client.post("/console/import", data={"csrf": csrf},
                               files={"fichier": ("membres.csv", csv, "text/csv")})
    assert report.status_code == 200, report.text
    rows = re.findall(r'<tr class="([^"]*)"><td[^>]*>(\d+)</td>.*?</tr>', report.text)
    assert rows == [("avertie", "2"), ("avertie", "3"), ("refus", "4")]
    assert "téléphone partagé avec la ligne 3" in report.text and "téléphone partagé avec la ligne 2" in report.text
    assert "2 lignes à vérifier" in report.text and "numéro invalide pour le Sénégal" in report.text
    contenu = re.search(r'name="contenu" value="([^"]+)"', report.text).group(1)
    done = await client.post("/console/import", data={"csrf": csrf, "contenu": contenu})
    assert done.status_code == 200 and "Import effectué" in done.text
    listed = await client.get("/console/membres", params={"q": f"kane{marker}"})
    assert "2 membres" in listed.text and "+221775550001" in listed.text


@pytest.fixture
async def tuned(settings):
    """The service with an import threshold of 2 lines: a 3-line real import becomes a background task."""
    app = create_app(settings.model_copy(update={"tache_seuil_import_lignes": 2}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield app, http
    await app.state.engine.dispose()
    await app.state.principal_engine.dispose()


async def test_a_background_import_lists_its_flagged_lines(tuned, committed_db, committed_factory):
    app, client = tuned
    org = await committed_factory.organisation()
    secretaire = await committed_factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    secretaire.user.password_hash = hash_password(PASSWORD)
    await committed_db.commit()
    csrf = await sign_in(client, secretaire, None)
    marker = uuid.uuid4().hex[:6]
    csv = (f"prénom;nom;téléphone\nAwa;Tall{marker};77 555 00 02\nModou;Tall{marker};77 555 00 02\n"
           f"Binta;Kane{marker};77 555 00 03\n").encode()
    dry = await client.post("/console/import", data={"csrf": csrf}, files={"fichier": ("m.csv", csv, "text/csv")})
    contenu = re.search(r'name="contenu" value="([^"]+)"', dry.text).group(1)
    real = await client.post("/console/import", data={"csrf": csrf, "contenu": contenu})
    assert real.status_code == 303, real.text
    await asyncio.gather(*await Planificateur(app.state.engine, app.state.settings, jobs=[]).tick())
    done = await client.get(real.headers["location"])
    assert "Import de membres — Terminée" in done.text and "Lignes refusées ou à vérifier" in done.text
    rows = re.findall(r'<tr class="([^"]*)"><td[^>]*>(\d+)</td>', done.text)
    assert rows == [("avertie", "2"), ("avertie", "3")], done.text
    assert "téléphone partagé avec la ligne 3" in done.text and "2 lignes à vérifier" in done.text
