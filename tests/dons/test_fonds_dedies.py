"""Earmarked funds: a donation given for a purpose feeds its fund; uses are assigned to it, never beyond what it
holds; the year's statement carries the unused balance forward."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tests.console.connexion import KEY, sign_in
from tests.factories.comptabilite import compte, journal
from tests.factories.paiements import defaire
from tests.livres import lignes_par_compte, solde

RECETTES = "/api/paiements/recettes"
FONDS = "/api/comptabilite/fonds-dedies"


async def test_an_earmarked_gift_feeds_its_fund_uses_are_assigned_and_the_balance_carried_forward(client, factory,
                                                                                                  db):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    now = datetime.now(UTC)
    annee = now.year
    l_an_dernier = datetime(annee - 1, 6, 15, 10, tzinfo=UTC)

    def don(montant: str, quand: datetime, objet: str = "Bourses scolaires") -> dict:
        return {"nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id),
                "montant": montant, "methode": "ESPECES", "datePaiement": quand.isoformat(), "affectation": objet,
                "donateur": {"type": "PERSONNE_MORALE", "nom": "Fondation Sahel", "ninea": "00987654"}}

    for body in (don("300000", l_an_dernier), don("200000", now - timedelta(minutes=5))):
        assert (await client.post(RECETTES, headers=tresorier.headers, json=body)).status_code == 201
    fonds = (await client.get(FONDS, headers=president.headers, params={"organisationId": str(org.id)})).json()
    assert len(fonds) == 1 and fonds[0]["objet"] == "Bourses scolaires" and fonds[0]["donateur"] == "Fondation Sahel"
    assert Decimal(fonds[0]["solde"]) == Decimal("500000")
    assert [m["typeMouvement"] for m in fonds[0]["mouvements"]] == ["RECU", "RECU"]

    emplois = f"{FONDS}/{fonds[0]['id']}/emplois"
    emploi = {"dateEmploi": (now - timedelta(minutes=1)).isoformat(), "montant": "120000",
              "libelle": "Bourses du premier trimestre", "reference": "VRS-2026-0004"}
    headers = {**tresorier.headers, "Idempotency-Key": "emploi-fonds-1"}
    fait = await client.post(emplois, headers=headers, json=emploi)
    assert fait.status_code == 201, fait.text
    assert Decimal(fait.json()["solde"]) == Decimal("380000")
    assert (await client.post(emplois, headers=headers, json=emploi)).json()["solde"] == "380000.00"
    trop = await client.post(emplois, headers=tresorier.headers, json={**emploi, "montant": "380000.01"})
    assert trop.status_code == 400 and "380000" in trop.json()["detail"]
    assert (await client.post(emplois, headers=president.headers, json=emploi)).status_code == 403
    assert (await client.post(emplois, headers=membre.headers, json=emploi)).status_code == 403

    etat = (await client.get(f"{FONDS}/etat", headers=president.headers,
                             params={"organisationId": str(org.id), "annee": annee})).json()
    ligne = etat["fonds"][0]
    assert (ligne["ouverture"], ligne["recu"], ligne["employe"], ligne["cloture"]) == (
        "300000.00", "200000.00", "120000.00", "380000.00")
    precedent = (await client.get(f"{FONDS}/etat", headers=president.headers,
                                  params={"organisationId": str(org.id), "annee": annee - 1})).json()
    assert (precedent["fonds"][0]["ouverture"], precedent["fonds"][0]["cloture"]) == ("0.00", "300000.00")
    assert etat["totalCloture"] == "380000.00"

    # The books say the same (SYCEBNL Guide, application 4): the gifts were credited to 165, never to income; the use
    # moved its amount from 165 to 7925, in the OD journal, under the use's voucher reference.
    assert (await solde(db, org, "165"), await solde(db, org, "7925")) == (Decimal(-380000), Decimal(-120000))
    assert await solde(db, org, "7581") == 0 and await solde(db, org, "571") == Decimal(500000)
    assert await lignes_par_compte(db, org, "VRS-2026-0004") == {
        "165": (Decimal(120000), Decimal(0)), "7925": (Decimal(0), Decimal(120000))}
    assert (etat["soldeCompte"], etat["ecart"]) == ("380000.00", "0.00")
    assert (precedent["soldeCompte"], precedent["ecart"]) == ("300000.00", "0.00")
    # The cash-basis statement counts the earmarked gift received on 165 as a donation.
    caisse = (await client.get("/api/comptabilite/etats/smt/recettes-depenses", headers=president.headers,
                               params={"organisationId": str(org.id), "exercice": annee})).json()
    assert {r["categorie"]: r["total"] for r in caisse["recettes"]}.get("DONS") == "200000.00"


async def test_a_cancelled_gift_gets_a_counter_line_and_leaves_its_fund(client, factory, db):
    """The register is append-only: undoing a DON receipt (four eyes) adds the opposite line, same donor and
    purpose; the chain still holds and the fund no longer counts the gift."""
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    body = {"nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "40000",
            "methode": "ESPECES", "affectation": "Soutien aux sinistrés",
            "donateur": {"type": "PERSONNE_PHYSIQUE", "nom": "Ibrahima Fall", "telephone": "+221770000009"}}
    don = await client.post(RECETTES, headers=tresorier.headers, json=body)
    assert don.status_code == 201, don.text
    fait = await defaire(client, f"/api/paiements/{don.json()['id']}/annuler", tresorier, president, "Doublon")
    assert fait.status_code == 200, fait.text

    today = datetime.now(UTC).date()
    params = {"organisationId": str(org.id), "debut": str(today - timedelta(days=1)), "fin": str(today)}
    lignes = (await client.get("/api/comptabilite/registre-dons", headers=president.headers, params=params)).json()
    assert [(x["numero"], x["montant"], x["donateurNom"]) for x in lignes["lignes"]] == [
        (1, "40000.00", "Ibrahima Fall"), (2, "-40000.00", "Ibrahima Fall")]
    assert "ANNULE" in lignes["lignes"][1]["reference"] and lignes["total"] == "0.00"
    verifie = await client.get("/api/comptabilite/registre-dons/verifier", headers=president.headers,
                               params={"organisationId": str(org.id)})
    assert verifie.json()["intact"] is True and verifie.json()["lignesVerifiees"] == 2
    fonds = (await client.get(FONDS, headers=president.headers, params={"organisationId": str(org.id)})).json()
    assert fonds[0]["solde"] == "0.00" and len(fonds[0]["mouvements"]) == 2
    assert await solde(db, org, "165") == 0  # the receipt's entry reversed: the fund account holds nothing


async def test_a_fund_the_books_do_not_hold_cannot_be_used(client, factory, db):
    """A gift for a purpose booked elsewhere than 165 (here: in kind, credited by choice to the donations income
    account) is in the register and its fund, but the books do not hold it as a fund: using it would leave 165 in
    debit, so the use is refused, and the year's statement shows the difference."""
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    dons = await compte(client, tresorier.headers, org.id, "7582", "Dons en nature reçus")
    stock = await compte(client, tresorier.headers, org.id, "3411", "Dons en nature à distribuer")
    od = await journal(client, tresorier.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    quand = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    ligne = await client.post("/api/comptabilite/registre-dons/nature", headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateDon": quand, "montant": "90000", "description": "Sacs de riz",
        "donateur": {"type": "PERSONNE_PHYSIQUE", "nom": "Awa Ndiaye", "telephone": "+221770000002"},
        "baseEvaluation": "Prix du marché de Tilène", "affectation": "Soutien aux sinistrés",
        "journalId": od["id"], "compteDebitId": stock["id"], "compteCreditId": dons["id"]})
    assert ligne.status_code == 201, ligne.text
    fonds = (await client.get(FONDS, headers=tresorier.headers, params={"organisationId": str(org.id)})).json()
    assert fonds[0]["solde"] == "90000.00"
    emploi = await client.post(f"{FONDS}/{fonds[0]['id']}/emplois", headers=tresorier.headers, json={
        "dateEmploi": datetime.now(UTC).isoformat(), "montant": "30000", "libelle": "Distribution à Kaolack",
        "reference": "BL-0001"})
    assert emploi.status_code == 400 and "165" in emploi.json()["detail"], emploi.text
    etat = (await client.get(f"{FONDS}/etat", headers=tresorier.headers,
                             params={"organisationId": str(org.id), "annee": datetime.now(UTC).year})).json()
    assert (etat["totalCloture"], etat["soldeCompte"], etat["ecart"]) == ("90000.00", "0.00", "90000.00")


async def test_the_console_shows_the_funds_beside_the_books_and_assigns_a_use_once(client, factory, db):
    """The treasurer's screen: the year's funds and the 165 balance; a use assigned from a fund's row is booked once
    (double click), a use beyond the balance comes back refused on that row; the auditor reads, does not assign."""
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    body = {"nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "250000",
            "methode": "ESPECES", "affectation": "Forage du village",
            "donateur": {"type": "PERSONNE_MORALE", "nom": "ONG Eau Vive", "ninea": "00123456"}}
    assert (await client.post(RECETTES, headers=tresorier.headers, json=body)).status_code == 201
    csrf = await sign_in(client, tresorier, db)
    page = await client.get("/console/fonds-dedies")
    assert page.status_code == 200, page.text
    assert "Forage du village" in page.text and "ONG Eau Vive" in page.text and "tiennent aux livres" in page.text
    fonds_id = (await client.get(FONDS, headers=tresorier.headers,
                                 params={"organisationId": str(org.id)})).json()[0]["id"]
    url = f"/console/fonds-dedies/{fonds_id}/emplois"
    cle = KEY.search(page.text).group(1)
    emploi = {"csrf": csrf, "idempotency_key": cle, "date_emploi": str(datetime.now(UTC).date()),
              "montant": "100 000", "libelle": "Acompte au foreur", "reference": "FAC-2026-031"}
    trop = await client.post(url, data={**emploi, "montant": "300 000"})
    assert trop.status_code == 400 and "250000" in trop.text and 'value="Acompte au foreur"' in trop.text
    premier = await client.post(url, data=emploi)
    assert premier.status_code == 303, premier.text
    assert (await client.post(url, data=emploi)).status_code == 303  # a double click: one use
    assert await solde(db, org, "165") == Decimal(-150000) and await solde(db, org, "7925") == Decimal(-100000)
    apres = (await client.get("/console/fonds-dedies?fait=emploi")).text
    assert "Emploi affecté" in apres and "150\u202f000\u00a0FCFA" in apres
    await sign_in(client, auditeur, db)
    lu = await client.get("/console/fonds-dedies")
    assert lu.status_code == 200 and "Forage du village" in lu.text and "Affecter" not in lu.text
    assert (await client.post(url, data=emploi)).status_code == 403
