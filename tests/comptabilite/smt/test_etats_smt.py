"""SYCEBNL système minimal de trésorerie over real activity (dues in cash and by transfer, a donation, a payout,
a transfer between treasuries): eligibility against the configured thresholds, the statement of receipts and
payments, the treasury position tied to class 5, one journal per treasury; PDF to sign and XLSX."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from openpyxl import load_workbook

from tests.factories.paiements import encaisser
from tests.factories.tresoreries import declarer, versement
from tests.pdf import pdf_page_image, pdf_text

ANNEE = datetime.now(UTC).year
URL = "/api/comptabilite/etats/smt/%s?organisationId=%s"


async def _activite(client, factory, db):
    org = await factory.organisation(nom="Association des femmes de Thiès")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    ids = {}
    for body in (declarer(org, "CAISSE", "Caisse du siège", "571", parDefaut=True),
                 declarer(org, "BANQUE", "Banque CBAO", "521", parDefaut=True, decouvertAutorise="0")):
        made = await client.post("/api/tresoreries", headers=tresorier.headers, json=body)
        assert made.status_code == 201, made.text
        ids[body["numeroCompte"]] = made.json()["id"]
    await encaisser(client, db, org, tresorier, membre, "20000", "ESPECES")
    await encaisser(client, db, org, tresorier, membre, "50000", "VIREMENT")
    don = await client.post("/api/paiements/recettes", headers=tresorier.headers, json={
        "nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "150000",
        "methode": "ESPECES"})
    assert don.status_code == 201, don.text
    cree = await client.post("/api/versements", headers=tresorier.headers,
                             json=versement(org, "5000", tresorerieId=ids["571"]))
    assert cree.status_code == 201, cree.text
    paye = await client.post(f"/api/versements/{cree.json()['id']}/confirmer", headers=president.headers,
                             json={"referenceExterne": "PIECE-7"})
    assert paye.status_code == 200, paye.text
    vire = await client.post("/api/tresoreries/virements-internes", headers=tresorier.headers, json={
        "organisationId": str(org.id), "sourceId": ids["571"], "destinationId": ids["521"], "montant": "10000",
        "libelle": "Dépôt en banque"})
    assert vire.status_code == 201, vire.text
    return org, tresorier, president, ids


async def test_cash_statements_tie_to_class_5(client, factory, db):
    org, tresorier, _, ids = await _activite(client, factory, db)

    rd = await client.get(URL % ("recettes-depenses", org.id), headers=tresorier.headers)
    assert rd.status_code == 200, rd.text
    rd = rd.json()
    recettes = {r["categorie"]: Decimal(r["total"]) for r in rd["recettes"]}
    assert recettes == {"COTISATIONS": Decimal(70000), "DONS": Decimal(150000)}
    assert Decimal(rd["totalDepenses"]) == 5000 and Decimal(rd["solde"]) == 215000
    assert Decimal(rd["tresorerieOuverture"]) + Decimal(rd["solde"]) == Decimal(rd["tresorerieCloture"])

    situation = (await client.get(URL % ("tresorerie", org.id), headers=tresorier.headers)).json()
    par_compte = {t["numeroCompte"]: t for t in situation["tresoreries"]}
    assert Decimal(par_compte["571"]["cloture"]) == 155000 and Decimal(par_compte["521"]["cloture"]) == 60000
    assert par_compte["571"]["tresorerieId"] == ids["571"] and situation["concorde"] is True
    assert Decimal(situation["totalCloture"]) == Decimal(rd["tresorerieCloture"])

    balance = (await client.get(f"/api/comptabilite/etats/balance?organisationId={org.id}",
                                headers=tresorier.headers)).json()
    classe5 = {lg["numeroCompte"]: Decimal(lg["soldeDebiteur"]) - Decimal(lg["soldeCrediteur"])
               for lg in balance["lignes"] if lg["classe"] == 5}
    journaux = (await client.get(URL % ("journal", org.id), headers=tresorier.headers)).json()["journaux"]
    for j in journaux:
        dernier = j["mouvements"][-1]["solde"] if j["mouvements"] else j["soldeOuverture"]
        assert Decimal(dernier) == Decimal(j["soldeCloture"]) == classe5.get(j["numeroCompte"], 0), j
    caisse = (await client.get(URL % ("journal", org.id) + f"&tresorerieId={ids['571']}",
                               headers=tresorier.headers)).json()["journaux"]
    assert [j["numeroCompte"] for j in caisse] == ["571"]
    assert [Decimal(m["entree"]) - Decimal(m["sortie"]) for m in caisse[0]["mouvements"]] == [
        20000, 150000, -5000, -10000]
    autre = await factory.organisation()
    assert (await client.get(URL % ("journal", autre.id), headers=tresorier.headers)).status_code == 404
    assert (await client.get(URL % ("journal", org.id) + f"&exercice={ANNEE + 1}",
                             headers=tresorier.headers)).status_code == 400

    for etat, titre in (("recettes-depenses", "État des recettes et des dépenses"),
                        ("tresorerie", "Situation de trésorerie"), ("journal", "Journaux de trésorerie"),
                        ("eligibilite", "Éligibilité au système minimal de trésorerie")):
        pdf = await client.get(URL % (etat, org.id) + "&format=pdf", headers=tresorier.headers)
        assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
        text = pdf_text(pdf.content)
        assert titre in text and "Le Président" in text and "Association des femmes de Thiès" in text, etat
        if os.environ.get("UNIONFLOW_KEEP_PAGES"):  # docs/etats/smt-*.png: the first page, to look at it
            pdf_page_image(pdf.content, 0, 1.2).save(Path(os.environ["UNIONFLOW_KEEP_PAGES"]) / f"smt-{etat}.png")
        xlsx = await client.get(URL % (etat, org.id) + "&format=xlsx", headers=tresorier.headers)
        sheet = load_workbook(io.BytesIO(xlsx.content)).active
        assert sheet["A1"].value == titre


async def test_eligibility_against_configured_thresholds(client, factory, db):
    org, tresorier, president, _ = await _activite(client, factory, db)
    vu = (await client.get(URL % ("eligibilite", org.id), headers=tresorier.headers)).json()
    montants = {r["categorie"]: Decimal(r["montant"]) for r in vu["ressources"]}
    assert montants == {"COTISATIONS": 70000, "DONS": 150000, "SUBVENTIONS": 0, "AUTRES": 0}
    assert Decimal(vu["totalRessources"]) == 220000 and Decimal(vu["seuilRessources"]) == 30_000_000
    assert vu["eligible"] is True and vu["seuilsVerifies"] is False and vu["referentiel"] == "SYCEBNL_NORMAL"

    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    for cle, valeur in (("comptabilite.smt.seuil_ressources", 200000), ("comptabilite.smt.seuil_dons", 100000)):
        put = await client.put(f"/api/configuration/{cle}", headers=admin.headers, json={"valeur": valeur})
        assert put.status_code == 200, put.text
    choix = await client.post(f"/api/configuration/organisations/{org.id}/referentiel-comptable",
                              headers=president.headers,
                              json={"referentiel": "SYCEBNL_SMT", "exercice": ANNEE, "motif": "Petite association"})
    assert choix.status_code == 201, choix.text
    vu = (await client.get(URL % ("eligibilite", org.id), headers=tresorier.headers)).json()
    dons = next(r for r in vu["ressources"] if r["categorie"] == "DONS")
    assert Decimal(dons["seuil"]) == 100000 and dons["depasse"] is True
    assert vu["eligible"] is False and vu["referentiel"] == "SYCEBNL_SMT"
    assert "le système normal s'impose" in vu["alertes"][0]


async def test_opening_balances_open_the_year_and_are_no_receipt(client, factory, db):
    """Opening balances (journal AN, dated 1 January) are the treasuries' opening, not a receipt of the year."""
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    caisse = (await client.post("/api/tresoreries", headers=tresorier.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571", parDefaut=True))).json()
    asked = await client.post("/api/tresoreries/a-nouveaux", headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateDebut": f"{ANNEE}-01-01",
        "tresoreries": [{"tresorerieId": caisse["id"], "montant": "80000"}]})
    assert asked.status_code == 202, asked.text
    done = await client.post(f"/api/tresoreries/a-nouveaux/{asked.json()['id']}/approuver",
                             headers=president.headers, json={})
    assert done.status_code == 200, done.text
    await encaisser(client, db, org, tresorier, membre, "12000", "ESPECES")

    rd = (await client.get(URL % ("recettes-depenses", org.id), headers=tresorier.headers)).json()
    assert Decimal(rd["totalRecettes"]) == 12000 and Decimal(rd["totalDepenses"]) == 0
    assert Decimal(rd["tresorerieOuverture"]) == 80000 and Decimal(rd["tresorerieCloture"]) == 92000
    journal = (await client.get(URL % ("journal", org.id) + f"&tresorerieId={caisse['id']}",
                                headers=tresorier.headers)).json()["journaux"][0]
    assert Decimal(journal["soldeOuverture"]) == 80000 and len(journal["mouvements"]) == 1
    assert Decimal(journal["mouvements"][0]["solde"]) == Decimal(journal["soldeCloture"]) == 92000
    situation = (await client.get(URL % ("tresorerie", org.id), headers=tresorier.headers)).json()
    assert situation["concorde"] is True
