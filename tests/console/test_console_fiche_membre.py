"""The secretary adds and edits one member in the console; people with a matching name are shown before saving."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import sign_in
from unionflow.models import Membre


async def test_the_secretary_adds_a_member_after_seeing_the_namesakes_and_edits_him(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    await factory.membre(org, prenom="Élodie", nom="Diop")
    csrf = await sign_in(client, secretaire, db)
    liste = await client.get("/console/membres")
    assert "/console/nouveau-membre" in liste.text
    form = {"csrf": csrf, "prenom": "elodie", "nom": "DIOP", "telephone": "+221771234567", "ville": "Thiès"}
    # A namesake, accents and case aside: shown, nothing saved until the secretary confirms.
    warned = await client.post("/console/nouveau-membre", data=form)
    assert warned.status_code == 200 and "Élodie" in warned.text and 'name="confirmer"' in warned.text
    assert 'value="Thiès"' in warned.text
    count = select(Membre).where(Membre.prenom.in_(["Élodie", "elodie"]))
    assert len((await db.execute(count)).scalars().all()) == 1
    bad = await client.post("/console/nouveau-membre", data={**form, "confirmer": "1", "telephone": "12"})
    assert bad.status_code == 400 and "telephone" in bad.text and 'value="Thiès"' in bad.text
    saved = await client.post("/console/nouveau-membre", data={**form, "confirmer": "1"})
    assert saved.status_code == 303, saved.text
    page = await client.get(saved.headers["location"])
    assert "Membre inscrit" in page.text and "Modifier la fiche" in page.text
    membre_id = saved.headers["location"].split("/")[3].split("?")[0]
    edited = await client.post(f"/console/membres/{membre_id}/modifier", data={
        "csrf": csrf, "prenom": "Élodie", "nom": "Diop", "telephone": "+221771234567", "ville": "Mbour"})
    assert edited.status_code == 303, edited.text
    api = await client.get(f"/api/membres/{membre_id}", headers=secretaire.headers)
    assert (api.json()["prenom"], api.json()["ville"]) == ("Élodie", "Mbour")
