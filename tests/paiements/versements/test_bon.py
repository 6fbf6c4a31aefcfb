"""The payout voucher (« bon de décaissement »): a PDF fit to sign, read with the payout's own visibility."""

from __future__ import annotations

from tests.factories.finance import bureau, seuils
from tests.pdf import pdf_text

APPROBATIONS = "/api/finance/approbations"


def _nom(actor):
    return f"{actor.membre.prenom} {actor.membre.nom}"


async def _paid_payout(client, b, montant="75000"):
    body = {"organisationId": str(b.org.id), "montant": montant, "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat de chaises pour la salle", "beneficiaireNom": "Menuiserie Ndiaye",
            "beneficiaireTelephone": "+221771234567"}
    created = await client.post("/api/versements", headers=b.tresorier.headers, json=body)
    assert created.status_code == 201, created.text
    vid = created.json()["id"]
    listed = await client.get(APPROBATIONS, headers=b.tresorier.headers,
                              params={"typeObjet": "VERSEMENT", "objetId": vid})
    [approbation] = listed.json()["content"]
    decided = await client.post(f"{APPROBATIONS}/{approbation['id']}/approuver", headers=b.president.headers)
    assert decided.status_code == 200, decided.text
    done = await client.post(f"/api/versements/{vid}/confirmer", headers=b.admin_org.headers,
                             json={"referenceExterne": "CHQ-0042"})
    assert done.status_code == 200, done.text
    return done.json()


async def test_the_voucher_prints_everything_a_signature_needs(client, factory):
    b = await bureau(factory)
    await seuils(client, factory, versement="50000")
    versement = await _paid_payout(client, b)
    response = await client.get(f"/api/versements/{versement['id']}/bon", headers=b.tresorier.headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert f"bon-{versement['numero']}.pdf" in response.headers["content-disposition"]
    text = pdf_text(response.content)
    for expected in (b.org.nom, f"BON DE DÉCAISSEMENT N° {versement['numero']}", "Menuiserie Ndiaye",
                     "75 000", "soixante-quinze mille francs CFA", "Autre dépense", "Achat de chaises pour la salle",
                     "CHQ-0042", f"Préparé par : {_nom(b.tresorier)}", f"Approuvé par : {_nom(b.president)}",
                     f"Confirmé par : {_nom(b.admin_org)}", "Reçu la somme de soixante-quinze mille francs CFA",
                     "Le trésorier", "L'approbateur", "Signature du bénéficiaire", "Sortie de :"):
        assert expected in text, (expected, text)
    assert "pas encore exécuté" not in text


async def test_a_voucher_printed_before_the_payout_says_it_is_not_executed(client, factory):
    b = await bureau(factory)
    body = {"organisationId": str(b.org.id), "montant": "1200", "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Transport", "beneficiaireNom": "Moussa Fall"}
    created = (await client.post("/api/versements", headers=b.tresorier.headers, json=body)).json()
    response = await client.get(f"/api/versements/{created['id']}/bon", headers=b.president.headers)
    assert response.status_code == 200, response.text
    text = pdf_text(response.content)
    assert "Versement préparé, pas encore exécuté" in text
    assert "mille deux cents francs CFA" in text
    assert "(en attente de confirmation)" in text


async def test_the_voucher_is_read_like_the_payout(client, factory):
    b = await bureau(factory)
    body = {"organisationId": str(b.org.id), "montant": "1200", "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Transport", "beneficiaireNom": "Moussa Fall"}
    created = (await client.post("/api/versements", headers=b.tresorier.headers, json=body)).json()
    url = f"/api/versements/{created['id']}/bon"
    auditor = await factory.actor(["USER"], organisation=b.org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    assert (await client.get(url, headers=auditor.headers)).status_code == 200
    other = await bureau(factory)
    assert (await client.get(url, headers=other.tresorier.headers)).status_code == 404
    assert (await client.get(url, headers=b.membre.headers)).status_code in (403, 404)


async def test_the_console_payouts_page_links_the_voucher_and_the_auditor_has_no_to_approve_list(
        client, factory, db):
    from tests.console.connexion import sign_in

    b = await bureau(factory)
    body = {"organisationId": str(b.org.id), "montant": "1200", "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Transport", "beneficiaireNom": "Moussa Fall"}
    created = (await client.post("/api/versements", headers=b.tresorier.headers, json=body)).json()
    auditor = await factory.actor(["USER"], organisation=b.org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    await sign_in(client, auditor, db)
    page = await client.get("/console/versements")
    assert page.status_code == 200
    assert f'/console/versements/{created["id"]}/bon' in page.text
    assert '<a href="/console/a-approuver">' not in page.text
    pdf = await client.get(f"/console/versements/{created['id']}/bon")
    assert pdf.status_code == 200 and "Moussa Fall" in pdf_text(pdf.content)
    assert (await client.get("/console/a-approuver")).status_code == 403
