"""Right of access (Loi 2008-12, art. 62): the member downloads all his data, JSON or PDF; his bureau's head or
administrator exports it for him (audited); nobody else."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.donnees_membre import dossier
from tests.pdf import pdf_text
from unionflow.models import AuditLog


async def test_member_downloads_all_his_data_as_json(client, factory, db):
    d = await dossier(client, factory, db)
    response = await client.get("/api/moi/donnees", headers=d.membre.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["membreId"] == str(d.membre.membre.id) and "art. 62" in body["fondement"]
    sections = {s["cle"]: s["lignes"] for s in body["sections"]}
    assert sections["identite"][0]["nom"] == "Sarr-Gueye" and sections["identite"][0]["telephone"] == "+221770000042"
    assert [p["numero_recu"] for p in sections["paiements"]] == [d.paiement["numeroRecu"]]
    assert sections["paiements"][0]["montant"] == "7500.00" and sections["paiements"][0]["cle_verification"] == "***"
    assert len(sections["cotisations"]) == 1 and len(sections["appartenances"]) == 1
    assert sections["notifications"][0]["corps"].startswith("Bonjour Ndèye Fatou")
    assert sections["compte"][0]["email"] == d.membre.user.email
    assert "alerte_lcb_ft" not in {s["table"] for s in body["sections"]}
    # Another member's rows never appear.
    assert d.tresorier.membre.nom not in str(sections["appartenances"])
    assert all(row.get("membre_id") in (None, str(d.membre.membre.id)) for rows in sections.values() for row in rows)


async def test_member_downloads_a_readable_pdf(client, factory, db):
    d = await dossier(client, factory, db)
    response = await client.get("/api/moi/donnees.pdf", headers=d.membre.headers)
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    text = pdf_text(response.content)
    assert "Données personnelles de Ndèye Fatou Sarr-Gueye" in text
    assert "Paiements et reçus (1)" in text and d.paiement["numeroRecu"] in text
    assert "Loi n° 2008-12" in text


async def test_president_exports_a_member_for_him_and_it_is_audited(client, factory, db):
    d = await dossier(client, factory, db)
    response = await client.get(f"/api/membres/{d.membre.membre.id}/donnees", headers=d.president.headers)
    assert response.status_code == 200, response.text
    assert response.json()["membreId"] == str(d.membre.membre.id)
    pdf = await client.get(f"/api/membres/{d.membre.membre.id}/donnees.pdf", headers=d.admin.headers)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    actions = (await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == str(d.membre.membre.id), AuditLog.type_action == "EXPORTER_DONNEES"))).scalars().all()
    assert len(actions) == 2


async def test_others_may_not_export_a_member(client, factory, db):
    d = await dossier(client, factory, db)
    path = f"/api/membres/{d.membre.membre.id}/donnees"
    # Roles outside the set: the treasurer, a plain member (even the member himself uses /api/moi/donnees).
    assert (await client.get(path, headers=d.tresorier.headers)).status_code == 403
    assert (await client.get(path, headers=d.membre.headers)).status_code == 403
    # The president of another organisation does not see the member.
    ailleurs = await factory.organisation()
    autre = await factory.actor(["USER"], organisation=ailleurs, org_roles=["MEMBRE", "PRESIDENT"])
    assert (await client.get(path, headers=autre.headers)).status_code == 404


async def test_an_account_without_member_record_has_no_data_file(client, factory):
    seul = await factory.actor(["USER"], with_membre=False)
    response = await client.get("/api/moi/donnees", headers=seul.headers)
    assert response.status_code == 404
