"""Receipts a treasurer can sign: Unicode text, FCFA and the amount in words, what is still owed, method in
words, the organisation's address and logo, and a QR code whose public verification tells no member data."""

from __future__ import annotations

import io

from PIL import Image

from tests.factories.cotisations import cotisation
from tests.factories.documents import upload
from tests.factories.paiements import defaire
from tests.pdf import pdf_image_count, pdf_page_image, pdf_text


async def _pay(client, treasurer, org, member, dues, montant: str, methode: str = "ESPECES"):
    response = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant, "methode": methode,
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert response.status_code == 201, response.text
    return response.json()


async def _setup(factory, **org_values):
    org = await factory.organisation(**org_values)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.prenom, member.membre.nom = "Aïssatou", "N'Diaye-Sène"
    await factory.session.flush()
    return org, treasurer, member


async def test_partial_payment_receipt_reads_like_a_signed_receipt(client, factory, db):
    org, treasurer, member = await _setup(
        factory, nom="Mutuelle des enseignants — Thiès", adresse="Quartier Escale, rue 12", ville="Thiès",
        telephone="+221771234567")
    dues = await cotisation(db, member.membre, org, 125000, libelle="Cotisation annuelle 2026 des enseignants "
                                                                   "du département de Thiès (section Escale)")
    paid = await _pay(client, treasurer, org, member, dues, "100000")

    receipt = await client.get(f"/api/paiements/{paid['id']}/recu", headers=member.headers)
    assert receipt.status_code == 200 and receipt.headers["content-type"] == "application/pdf"
    text = pdf_text(receipt.content)
    assert f"REÇU DE PAIEMENT N° {paid['numeroRecu']}" in text
    assert "Mutuelle des enseignants —" in text and "?" not in text.replace("?cle=", "")
    assert "Quartier Escale, rue 12" in text and "+221771234567" in text
    assert "Aïssatou N'Diaye-Sène" in text
    assert "cent mille francs CFA" in text and "100 000 FCFA" in text
    assert "25 000 FCFA" in text  # still owed on the dues after this partial payment
    assert "Espèces" in text and "ESPECES" not in text
    # The long label wraps inside its cell instead of running over the amount column.
    assert "(section Escale)" in text
    assert "Le trésorier (signature et cachet)" in text

    image = pdf_page_image(receipt.content)
    assert image.size[0] > 500 and image.getbbox() is not None
    assert len(set(image.convert("L").getdata())) > 2  # text, lines and the QR code, not a blank page


async def test_qr_code_link_verifies_the_receipt_without_member_data(client, factory, db):
    org, treasurer, member = await _setup(factory, nom="Association Jàmm ak Xéewal")
    dues = await cotisation(db, member.membre, org, 5000)
    paid = await _pay(client, treasurer, org, member, dues, "5000")
    text = pdf_text((await client.get(f"/api/paiements/{paid['id']}/recu", headers=member.headers)).content)
    link = next(line for line in text.splitlines() if "/api/recus/verifier/" in line).split(" : ", 1)[1].strip()
    assert link.startswith("http://testserver/api/recus/verifier/")
    path = link.removeprefix("http://testserver")

    verified = await client.get(path)  # anonymous: whoever holds the receipt
    assert verified.status_code == 200, verified.text
    body = verified.json()
    assert body == {**body, "numeroRecu": paid["numeroRecu"], "authentique": True, "valide": True,
                    "statut": "VALIDE", "montant": body["montant"], "organisation": "Association Jàmm ak Xéewal"}
    assert body["montant"] in ("5000.00", "5000")
    assert not {"membreId", "membre", "numeroMembre", "email", "telephone"} & set(body)

    wrong_key = await client.get(path.split("?cle=")[0] + "?cle=AAAAAAAAAAAAAAAA")
    unknown = await client.get(path.replace(paid["numeroRecu"], "REC-1999-000001"))
    assert wrong_key.status_code == unknown.status_code == 404
    assert wrong_key.json()["detail"] == unknown.json()["detail"]

    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    cancelled = await defaire(client, f"/api/paiements/{paid['id']}/annuler", treasurer, president,
                              "Saisie en double")
    assert cancelled.status_code == 200, cancelled.text
    after = (await client.get(path)).json()
    assert after["authentique"] is True and after["valide"] is False and after["statut"] == "ANNULE"


async def test_organisation_logo_is_printed(client, factory, db):
    org, treasurer, member = await _setup(factory)
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    buffer = io.BytesIO()
    Image.new("RGB", (120, 60), (0, 110, 60)).save(buffer, format="PNG")
    logo = await upload(client, admin.headers, buffer.getvalue(), "logo.png", "image/png",
                        organisationId=str(org.id), visibilite="ORGANISATION", typeDocument="AUTRE")
    assert logo.status_code == 200, logo.text
    pdf_doc = await upload(client, admin.headers, b"%PDF-1.4\n%%EOF\n", "statuts.pdf", "application/pdf",
                           organisationId=str(org.id), visibilite="ORGANISATION", typeDocument="AUTRE")
    refused = await client.put(f"/api/organisations/{org.id}", headers=admin.headers,
                               json={"logoDocumentId": pdf_doc.json()["id"]})
    assert refused.status_code == 400 and "PNG ou JPEG" in refused.json()["detail"]
    chosen = await client.put(f"/api/organisations/{org.id}", headers=admin.headers,
                              json={"logoDocumentId": logo.json()["id"]})
    assert chosen.status_code == 200 and chosen.json()["logoDocumentId"] == logo.json()["id"]

    dues = await cotisation(db, member.membre, org, 5000)
    paid = await _pay(client, treasurer, org, member, dues, "5000")
    receipt = await client.get(f"/api/paiements/{paid['id']}/recu", headers=member.headers)
    assert pdf_image_count(receipt.content) == 2  # the logo and the QR code
    # null removes the logo, as the field's description says (issue 21).
    removed = await client.put(f"/api/organisations/{org.id}", headers=admin.headers, json={"logoDocumentId": None})
    assert removed.status_code == 200 and removed.json()["logoDocumentId"] is None, removed.text
