"""The member's own jobs in the console: ask for aid and follow it (its notice says « 40 000 FCFA »), choose how he
is notified. Through the same operations as the API, checked through the API."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.factories.donnees_personnelles import consentement
from unionflow.models import Notification


async def test_member_asks_for_aid_and_follows_it(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    await consentement(db, membre.membre.id, org.id)  # MALADIE states health: SANTE_AIDE consent
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert 'href="/console/moi/aides"' in moi.text and 'href="/console/moi/preferences"' in moi.text
    page = await client.get("/console/moi/aides")
    assert page.status_code == 200 and "Demander une aide" in page.text
    form = {"csrf": csrf, "type": "MALADIE", "titre": "Hospitalisation de ma fille",
            "description": "Opération à l'hôpital de Thiès", "montant": "cent mille", "urgence": "ELEVEE"}
    refused = await client.post("/console/moi/aides", data=form)
    assert refused.status_code == 400 and '<span class="raison" id="raison-montant">' in refused.text
    assert 'value="Hospitalisation de ma fille"' in refused.text and "Opération à l&#39;hôpital" in refused.text
    assert '<option value="ELEVEE" selected>Élevée</option>' in refused.text
    done = await client.post("/console/moi/aides", data={**form, "montant": "150 000"})
    assert done.status_code == 303, done.text
    mine = (await client.get("/api/demandes-aide/mes", headers=membre.headers)).json()
    assert len(mine) == 1 and mine[0]["montantDemande"] == "150000.00" and mine[0]["urgence"] == "ELEVEE"
    listed = await client.get("/console/moi/aides?fait=1")
    assert "Soumise" in listed.text and "150\u202f000" in listed.text and "urgence élevée" in listed.text

    decided = await client.put(f"/api/demandes-aide/{mine[0]['id']}/approuver", headers=president.headers,
                               params={"montantAccorde": "40000", "motif": "Barème du bureau"})
    assert decided.status_code == 200, decided.text
    followed = await client.get("/console/moi/aides")
    assert "Approuvée" in followed.text and "40\u202f000\u00a0FCFA" in followed.text
    assert "Barème du bureau" in followed.text
    notices = (await db.execute(select(Notification).where(Notification.membre_id == membre.membre.id))).scalars()
    corps = " ".join(n.corps for n in notices)
    assert "40 000 FCFA" in corps and "40000.00" not in corps and "XOF" not in corps, corps


async def test_member_chooses_his_notification_channels(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    page = await client.get("/console/moi/preferences")
    assert page.status_code == 200 and "Rappels de cotisation" in page.text and "(toujours envoyé)" in page.text
    saved = await client.post("/console/moi/preferences", data={
        "csrf": csrf, "langue": "fr", "RAPPEL_COTISATION:SMS": "1", "INFORMATION:AUCUN": "1"})
    assert saved.status_code == 303, saved.text
    api = (await client.get("/api/preferences/me", headers=membre.headers)).json()
    assert api["canauxParType"] == {"RAPPEL_COTISATION": ["SMS"], "INFORMATION": []}
    assert api["refusNonObligatoires"] is False
    shown = await client.get("/console/moi/preferences?fait=1")
    assert 'name="RAPPEL_COTISATION:SMS" value="1" aria-label="Rappels de cotisation : SMS" checked' in shown.text
    assert 'name="INFORMATION:AUCUN" value="1" aria-label="Informations du bureau : ne pas recevoir" checked' \
        in shown.text
