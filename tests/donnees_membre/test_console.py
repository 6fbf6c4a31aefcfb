"""« Mon compte » in the console: the member downloads all his data (PDF or JSON) from a button."""

from __future__ import annotations

from tests.console.connexion import sign_in
from tests.factories.donnees_membre import dossier
from tests.pdf import pdf_text


async def test_member_downloads_his_data_from_mon_compte(client, factory, db):
    d = await dossier(client, factory, db)
    client.headers.pop("Authorization", None)
    await sign_in(client, d.membre, db)
    moi = await client.get("/console/moi")
    assert moi.status_code == 200 and "Télécharger mes données (PDF)" in moi.text
    pdf = await client.get("/console/moi/donnees.pdf")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert "Données personnelles de Ndèye Fatou Sarr-Gueye" in pdf_text(pdf.content)
    json = await client.get("/console/moi/donnees.json")
    assert json.status_code == 200 and json.json()["membreId"] == str(d.membre.membre.id)


async def test_president_decides_an_erasure_from_a_approuver(client, factory, db):
    d = await dossier(client, factory, db)
    demande = await client.post("/api/moi/donnees/effacement", headers=d.membre.headers,
                                json={"motif": "Je ne veux plus figurer dans le fichier"})
    assert demande.status_code == 201, demande.text
    demande_id = demande.json()["id"]
    client.headers.pop("Authorization", None)
    csrf = await sign_in(client, d.president, db)
    liste = await client.get("/console/a-approuver")
    assert "Effacement de données personnelles" in liste.text and f"/console/effacements/{demande_id}" in liste.text
    fiche = await client.get(f"/console/effacements/{demande_id}")
    assert fiche.status_code == 200 and "Je ne veux plus figurer" in fiche.text
    # A rejection without a reason comes back to the form with the reason.
    refus = await client.post(f"/console/effacements/{demande_id}/rejeter", data={"csrf": csrf, "commentaire": ""})
    assert refus.status_code == 400 and "obligatoire" in refus.text
    fait = await client.post(f"/console/effacements/{demande_id}/approuver", data={"csrf": csrf},
                             follow_redirects=True)
    assert fait.status_code == 200 and "Membre effacé #" in fait.text


async def test_member_objects_and_withdraws_from_his_page_and_the_dpo_decides(client, factory, db):
    d = await dossier(client, factory, db)
    dpo = await factory.actor(["USER"], organisation=d.org, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    client.headers.pop("Authorization", None)
    csrf = await sign_in(client, d.membre, db)
    page = await client.get("/console/moi/donnees")
    assert page.status_code == 200 and "M'opposer à un traitement" in page.text
    assert "Rappels de cotisation par SMS et e-mail" in page.text
    refus = await client.post("/console/moi/donnees/oppositions",
                              data={"csrf": csrf, "traitement": "COTISATIONS", "motif": "Je ne veux pas"})
    assert refus.status_code == 409 and "requis par la loi" in refus.text
    fait = await client.post("/console/moi/donnees/oppositions", follow_redirects=True,
                             data={"csrf": csrf, "traitement": "RAPPELS_COTISATION", "motif": "Je paie au guichet"})
    assert fait.status_code == 200 and "Opposition demandée" in fait.text
    demande_id = (await client.get("/api/moi/donnees/oppositions", headers=d.membre.headers)).json()[0]["id"]

    client.cookies.clear()
    csrf = await sign_in(client, dpo, db)
    liste = await client.get("/console/a-approuver")
    assert liste.status_code == 200, liste.text
    assert "Opposition à un traitement de données" in liste.text and f"/console/oppositions/{demande_id}" in liste.text
    fiche = await client.get(f"/console/oppositions/{demande_id}")
    assert fiche.status_code == 200 and "Je paie au guichet" in fiche.text
    approuve = await client.post(f"/console/oppositions/{demande_id}/approuver", data={"csrf": csrf},
                                 follow_redirects=True)
    assert approuve.status_code == 200 and "opposition en vigueur" in approuve.text

    client.cookies.clear()
    csrf = await sign_in(client, d.membre, db)
    assert "En vigueur" in (await client.get("/console/moi/donnees")).text
    retrait = await client.post(f"/console/moi/donnees/oppositions/{demande_id}/retrait", data={"csrf": csrf},
                                follow_redirects=True)
    assert retrait.status_code == 200 and "Opposition retirée" in retrait.text
    assert "Retirée" in retrait.text and "applique de nouveau" in retrait.text
