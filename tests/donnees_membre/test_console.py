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
