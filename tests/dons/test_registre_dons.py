"""The register of donations and bequests: every donation (counter DON receipts, gifts in kind) is a numbered line
with the donor's identity, sealed by a SHA-256 chain that a direct edit in the database breaks."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from openpyxl import load_workbook
from sqlalchemy import select, update

from tests.console.connexion import KEY, sign_in
from tests.factories.comptabilite import compte, journal
from tests.pdf import pdf_text
from unionflow.models import CompteComptable, EcritureComptable, LigneEcriture, LigneRegistreDon

RECETTES = "/api/paiements/recettes"
REGISTRE = "/api/comptabilite/registre-dons"


async def _bureau(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, tresorier, president, membre


def _don(org, membre, montant, methode="ESPECES", **extra):
    return {"nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, **extra}


def _periode(org) -> dict[str, str]:
    today = datetime.now(UTC).date()
    return {"organisationId": str(org.id), "debut": str(today - timedelta(days=400)), "fin": str(today)}


async def _recette(client, tresorier, body, status=201):
    response = await client.post(RECETTES, headers=tresorier.headers, json=body)
    assert response.status_code == status, response.text
    return response.json()


async def test_counter_donations_fill_the_register_with_the_donor(client, factory, db):
    org, tresorier, president, membre = await _bureau(factory)
    # A member's gift (no donor block): the member is the donor.
    recu = await _recette(client, tresorier, _don(org, membre, "25000"))
    # A company's earmarked transfer: name and registration numbers.
    societe = {"type": "PERSONNE_MORALE", "nom": "Sonatel SA", "rccm": "SN-DKR-1985-B-123", "ninea": "000123456"}
    await _recette(client, tresorier, _don(org, membre, "5000000", "VIREMENT", referenceExterne="VIR-88",
                                           donateur=societe, affectation="Construction du puits"))
    # Anonymous below the LCB-FT threshold; refused at it; a natural person must be reachable.
    await _recette(client, tresorier, _don(org, membre, "2000", donateur={"type": "ANONYME"}))
    refus = await _recette(client, tresorier, _don(org, membre, "5000000", donateur={"type": "ANONYME"}), 400)
    assert "seuil LCB-FT" in refus["detail"]
    await _recette(client, tresorier, _don(org, membre, "100", donateur={"type": "PERSONNE_PHYSIQUE",
                                                                          "nom": "Awa Ndiaye"}), 400)
    await _recette(client, tresorier, _don(org, membre, "100", donateur={"type": "ANONYME", "nom": "X"}), 400)

    registre = await client.get(REGISTRE, headers=president.headers, params=_periode(org))
    assert registre.status_code == 200, registre.text
    r = registre.json()
    lignes = r["lignes"]
    assert [x["numero"] for x in lignes] == [1, 2, 3]
    assert (lignes[0]["typeDonateur"], lignes[0]["membreId"], lignes[0]["reference"]) == (
        "MEMBRE", str(membre.membre.id), recu["numeroRecu"])
    assert lignes[0]["donateurNom"] and lignes[0]["forme"] == "ESPECES" and lignes[0]["paiementId"] == recu["id"]
    assert (lignes[1]["donateurRccm"], lignes[1]["forme"], lignes[1]["affectation"]) == (
        "SN-DKR-1985-B-123", "VIREMENT", "Construction du puits")
    assert lignes[1]["seuilLcbftAtteint"] is True and lignes[0]["seuilLcbftAtteint"] is False
    assert lignes[1]["fondsId"] is not None
    assert lignes[2]["typeDonateur"] == "ANONYME" and lignes[2]["donateurNom"] is None
    assert lignes[1]["hashPrecedent"] == lignes[0]["hash"] and len(lignes[0]["hash"]) == 64
    assert Decimal(r["total"]) == Decimal("5027000") and Decimal(r["seuilLcbft"]) == Decimal("5000000")
    assert r["president"] == f"{president.membre.prenom} {president.membre.nom}"

    # Printable: PDF with the president's signature block; XLSX.
    pdf = await client.get(REGISTRE, headers=tresorier.headers, params={**_periode(org), "format": "pdf"})
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    texte = pdf_text(pdf.content)
    assert "Registre des dons et legs" in texte and "Sonatel SA" in texte and president.membre.nom in texte
    xlsx = await client.get(REGISTRE, headers=tresorier.headers, params={**_periode(org), "format": "xlsx"})
    assert xlsx.status_code == 200
    cellules = [c.value for row in load_workbook(io.BytesIO(xlsx.content)).active.iter_rows() for c in row]
    assert "Sonatel SA — RCCM SN-DKR-1985-B-123 — NINEA 000123456" in cellules

    # The auditor reads; a plain member does not; another organisation's staff sees nothing.
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    assert (await client.get(REGISTRE, headers=auditeur.headers, params=_periode(org))).status_code == 200
    assert (await client.get(REGISTRE, headers=membre.headers, params=_periode(org))).status_code == 403
    autre = await factory.organisation()
    etranger = await factory.actor(["USER"], organisation=autre, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.get(REGISTRE, headers=etranger.headers, params=_periode(org))).status_code == 404
    # No route changes or removes a line.
    assert (await client.delete(f"{REGISTRE}/{lignes[0]['id']}", headers=tresorier.headers)).status_code in (404,
                                                                                                             405)


async def test_a_direct_edit_in_the_database_breaks_the_chain(client, factory, db):
    org, tresorier, president, membre = await _bureau(factory)
    for montant in ("1000", "2000", "3000"):
        await _recette(client, tresorier, _don(org, membre, montant))
    verifier = f"{REGISTRE}/verifier"
    params = {"organisationId": str(org.id)}
    ok = (await client.get(verifier, headers=president.headers, params=params)).json()
    assert (ok["intact"], ok["lignesVerifiees"], ok["premiereLigneRompue"]) == (True, 3, None)

    await db.execute(update(LigneRegistreDon).where(LigneRegistreDon.organisation_id == org.id,
                                                    LigneRegistreDon.numero == 2).values(montant=Decimal("200")))
    rompu = (await client.get(verifier, headers=president.headers, params=params)).json()
    assert (rompu["intact"], rompu["premiereLigneRompue"]) == (False, 2) and "modifié" in rompu["raison"]

    # A removed line is a gap, named as such.
    await db.execute(update(LigneRegistreDon).where(LigneRegistreDon.organisation_id == org.id,
                                                    LigneRegistreDon.numero == 2).values(montant=Decimal("2000")))
    assert (await client.get(verifier, headers=president.headers, params=params)).json()["intact"] is True
    ligne = (await db.execute(select(LigneRegistreDon).where(LigneRegistreDon.organisation_id == org.id,
                                                             LigneRegistreDon.numero == 1))).scalar_one()
    await db.delete(ligne)
    await db.flush()
    trou = (await client.get(verifier, headers=president.headers, params=params)).json()
    assert (trou["intact"], trou["premiereLigneRompue"]) == (False, 1) and "absente" in trou["raison"]


async def test_a_gift_in_kind_is_valued_booked_and_registered(client, factory, db):
    org, tresorier, president, membre = await _bureau(factory)
    await _recette(client, tresorier, _don(org, membre, "1000"))  # opens the default chart (7581)
    materiel = await compte(client, tresorier.headers, org.id, "2441", "Matériel de bureau")
    od = await journal(client, tresorier.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    body = {"organisationId": str(org.id), "dateDon": (datetime.now(UTC) - timedelta(hours=1)).isoformat(),
            "donateur": {"type": "PERSONNE_PHYSIQUE", "nom": "Moussa Diop", "telephone": "+221770000001"},
            "montant": "350000", "description": "Deux ordinateurs portables",
            "baseEvaluation": "Facture d'achat du donateur n° F-2026-17", "affectation": "Équipement du siège",
            "journalId": od["id"], "compteDebitId": materiel["id"]}
    headers = {**tresorier.headers, "Idempotency-Key": "don-nature-0001"}
    cree = await client.post(f"{REGISTRE}/nature", headers=headers, json=body)
    assert cree.status_code == 201, cree.text
    ligne = cree.json()
    assert (ligne["numero"], ligne["forme"], ligne["montant"]) == (2, "NATURE", "350000.00")
    assert ligne["baseEvaluation"].startswith("Facture") and ligne["reference"].startswith("OD")
    again = await client.post(f"{REGISTRE}/nature", headers=headers, json=body)
    assert again.status_code == 201 and again.json()["id"] == ligne["id"]
    ecriture = (await db.execute(select(EcritureComptable).where(
        EcritureComptable.numero_piece == ligne["reference"]))).scalar_one()
    montants = (await db.execute(select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
                                 .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
                                 .where(LigneEcriture.ecriture_id == ecriture.id))).all()
    # Valued, not money: the good's account against, this gift being for a purpose, the fund account 165 (not
    # income until used; docs/conformite.md S9); no treasury touched.
    assert sorted((n, Decimal(d), Decimal(c)) for n, d, c in montants) == [
        ("165", Decimal(0), Decimal(350000)), ("2441", Decimal(350000), Decimal(0))]

    r = (await client.get(REGISTRE, headers=president.headers, params=_periode(org))).json()
    assert (r["totalArgent"], r["totalNature"], r["total"]) == ("1000.00", "350000.00", "351000.00")
    assert "Deux ordinateurs portables" in pdf_text((await client.get(
        REGISTRE, headers=president.headers, params={**_periode(org), "format": "pdf"})).content)

    # Only the treasury records a gift; the president reads it.
    assert (await client.post(f"{REGISTRE}/nature", headers=president.headers,
                              json={**body, "montant": "1"})).status_code == 403
    futur = {**body, "dateDon": (datetime.now(UTC) + timedelta(days=2)).isoformat()}
    assert (await client.post(f"{REGISTRE}/nature", headers=tresorier.headers, json=futur)).status_code == 400
    assert (await client.post(f"{REGISTRE}/nature", headers=tresorier.headers,
                              json={**body, "baseEvaluation": None})).status_code == 400


async def test_the_console_lists_the_register_and_prints_it(client, factory, db):
    org, tresorier, president, membre = await _bureau(factory)
    await _recette(client, tresorier, _don(org, membre, "75000", donateur={
        "type": "PERSONNE_MORALE", "nom": "Banque Régionale SA", "rccm": "SN-DKR-2001-B-9"}))
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    await sign_in(client, auditeur, db)
    page = await client.get("/console/registre-dons")
    assert page.status_code == 200, page.text
    assert "Banque Régionale SA" in page.text and "Intact — lignes vérifiées : 1" in page.text
    assert 'href="/console/registre-dons"' in page.text  # offered in his menu
    pdf = await client.get("/console/registre-dons/fichier", params={"format": "pdf"})
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert president.membre.nom in pdf_text(pdf.content)
    await sign_in(client, membre, db)
    assert (await client.get("/console/registre-dons")).status_code == 403


async def test_the_counter_gift_form_names_the_donor(client, factory, db):
    org, tresorier, president, membre = await _bureau(factory)
    csrf = await sign_in(client, tresorier, db)
    url = f"/console/membres/{membre.membre.id}/don"
    form = await client.get(url)
    assert form.status_code == 200 and 'name="rccm"' in form.text and "Recevoir un don" in form.text
    cle = KEY.search(form.text).group(1)
    body = {"csrf": csrf, "idempotency_key": cle, "montant": "6 000 000", "methode": "ESPECES",
            "type": "ANONYME"}
    refused = await client.post(url, data=body)
    assert refused.status_code == 400 and "seuil LCB-FT" in refused.text and 'value="6 000 000"' in refused.text
    societe = {**body, "montant": "250 000", "methode": "VIREMENT", "reference": "VIR-2026-77",
               "type": "PERSONNE_MORALE", "nom": "Ciments du Sahel", "ninea": "004455667",
               "affectation": "Dispensaire"}
    recu = await client.post(url, data=societe)
    assert recu.status_code == 303, recu.text
    again = await client.post(url, data=societe)  # a double click: the same gift, once
    assert again.status_code == 303 and again.headers["location"] == recu.headers["location"]
    lignes = (await client.get(REGISTRE, headers=president.headers, params=_periode(org))).json()["lignes"]
    assert [(x["donateurNom"], x["donateurNinea"], x["montant"], x["forme"], x["affectation"]) for x in lignes] == [
        ("Ciments du Sahel", "004455667", "250000.00", "VIREMENT", "Dispensaire")]
    assert "/don" in (await client.get(f"/console/membres/{membre.membre.id}")).text
