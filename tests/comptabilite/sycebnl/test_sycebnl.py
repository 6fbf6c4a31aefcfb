"""SYCEBNL presentation: the account-to-heading mapping (read by the bureau and the auditor, replaced by the
administrator or the treasurer), the statements' headings and notes over a year of activity and the previous one,
and their PDF (to sign) and XLSX renderings."""

from __future__ import annotations

import io
import os
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.paiements import encaisser
from tests.pdf import pdf_page_image, pdf_text
from unionflow.models import AuditLog

TODAY = datetime.now(UTC).date()
N = TODAY.year
CORRESPONDANCE = "/api/comptabilite/sycebnl/correspondance"
COMPTES = {"571": "Caisse", "521": "Banque", "711": "Subventions d'exploitation",
           "165": "Fonds dédiés sur subventions", "7925": "Report des ressources affectées non utilisées",
           "182": "Emprunts et dettes auprès des établissements de crédit", "244": "Matériel et mobilier",
           "6581": "Aides et secours accordés", "401": "Fournisseurs", "605": "Autres achats"}


async def _bureau(factory: Any, nom: str = "Association des femmes de Ziguinchor") -> dict[str, Any]:
    org = await factory.organisation(nom=nom)
    roles = {"tresorier": "TRESORIER", "president": "PRESIDENT", "commissaire": "COMMISSAIRE_AUX_COMPTES",
             "admin": "ADMIN_ORGANISATION", "membre": None}
    return {"org": org, **{k: await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", *([r] if r else [])])
                            for k, r in roles.items()}}


async def _activite(client: Any, factory: Any, db: Any, b: dict[str, Any]) -> None:
    """Two years: a subsidy, part of it earmarked, a loan and equipment in N−1; dues, a donation, aid paid, a
    supplier's invoice, the earmarked fund released and a budget in N; volunteer time in both (never booked)."""
    org, t = b["org"], b["tresorier"]
    ids = {numero: (await compte(client, t.headers, org.id, numero, libelle))["id"]
           for numero, libelle in COMPTES.items()}
    od = await journal(client, t.headers, org.id, "OD", "OPERATIONS_DIVERSES")

    async def poster(jour: date, debit: str, credit: str, montant: str) -> None:
        posted = await passer(client, factory, org, t.headers, ecriture(
            od["id"], [(ids[debit], montant, "0"), (ids[credit], "0", montant)], jour.isoformat()))
        assert posted.status_code == 200, posted.text

    await poster(date(N - 1, 2, 1), "521", "711", "800000")
    await poster(date(N - 1, 2, 2), "521", "165", "300000")
    await poster(date(N - 1, 3, 1), "521", "182", "500000")
    await poster(date(N - 1, 4, 1), "244", "521", "450000")
    await poster(date(N - 1, 5, 1), "571", "521", "100000")
    await encaisser(client, db, org, t, b["membre"], "25000", "ESPECES")
    await encaisser(client, db, org, t, b["membre"], "40000", "VIREMENT")
    don = await client.post("/api/paiements/recettes", headers=t.headers, json={
        "nature": "DON", "membreId": str(b["membre"].membre.id), "organisationId": str(org.id),
        "montant": "60000", "methode": "ESPECES"})
    assert don.status_code == 201, don.text
    await poster(TODAY, "6581", "571", "35000")
    await poster(TODAY, "605", "401", "70000")
    await poster(TODAY, "401", "521", "50000")
    await poster(TODAY, "165", "7925", "120000")
    budget = await client.post("/api/finance/budgets", headers=t.headers, json={
        "organisationId": str(org.id), "annee": N, "libelle": f"Budget {N}", "lignes": [
            {"libelle": "Cotisations", "prefixeCompte": "7061", "montantPrevu": "100000"},
            {"libelle": "Aides", "compteId": ids["6581"], "montantPrevu": "50000"}]})
    assert budget.status_code == 201, budget.text
    for jour, heures in ((date(N - 1, 11, 20), "12"), (TODAY, "6.5")):
        benevolat = await client.post("/api/comptabilite/benevolat", headers=b["president"].headers, json={
            "organisationId": str(org.id), "membreId": str(b["membre"].membre.id), "dateContribution": str(jour),
            "heures": heures, "tauxHoraire": "800", "activite": "Animation de la causerie sur la santé"})
        assert benevolat.status_code == 201, benevolat.text


def _d(value: Any) -> Decimal:
    return Decimal(str(value))


def _rubriques(etat: dict[str, Any], cle: str) -> dict[str, dict[str | None, tuple[Decimal, Decimal]]]:
    return {r["code"]: {p["numeroCompte"]: (_d(p["montantN"]), _d(p["montantN1"])) for p in r["postes"]}
            for r in etat[cle]}


async def test_mapping_is_read_by_the_auditor_and_replaced_by_the_treasurer(client, factory, db):
    b = await _bureau(factory)
    org, t = b["org"], b["tresorier"]
    params = {"organisationId": str(org.id)}
    lue = await client.get(CORRESPONDANCE, headers=b["commissaire"].headers, params=params)
    assert lue.status_code == 200, lue.text
    defaut = {lg["prefixe"]: lg for lg in lue.json()["lignes"]}
    assert lue.json()["parDefaut"] is True
    assert defaut["7581"]["rubrique"] == "DONS" and defaut["16"]["rubrique"] == "FONDS_DEDIES"
    assert defaut["7925"]["section"] == "PRODUIT" and defaut["9"]["section"] == "HORS_BILAN"
    assert defaut["7061"]["flux"] == "ENC_MEMBRES" and defaut["6581"]["flux"] == "DEC_BENEFICIAIRES"

    nouvelle = {"lignes": [{"prefixe": "7581", "rubrique": "SUBVENTIONS_EXPLOITATION"}]}
    for qui in ("commissaire", "president", "membre"):
        refus = await client.put(CORRESPONDANCE, headers=b[qui].headers, params=params, json=nouvelle)
        assert refus.status_code == 403, (qui, refus.text)
    for corps in ({"lignes": [{"prefixe": "6", "rubrique": "COTISATIONS"}]},
                  {"lignes": [{"prefixe": "7581", "rubrique": "DONS"}, {"prefixe": "7581", "rubrique": "DONS"}]},
                  {"lignes": [{"prefixe": "x1", "rubrique": "DONS"}]}, {"lignes": [], "parDefaut": True}):
        refus = await client.put(CORRESPONDANCE, headers=t.headers, params=params, json=corps)
        assert refus.status_code == 400, (corps, refus.text)
    assert "classe" in (await client.put(CORRESPONDANCE, headers=t.headers, params=params, json={
        "lignes": [{"prefixe": "6", "rubrique": "COTISATIONS"}]})).json()["detail"]

    don = await client.post("/api/paiements/recettes", headers=t.headers, json={
        "nature": "DON", "membreId": str(b["membre"].membre.id), "organisationId": str(org.id),
        "montant": "15000", "methode": "ESPECES"})
    assert don.status_code == 201, don.text
    remplacee = await client.put(CORRESPONDANCE, headers=b["admin"].headers, params=params, json=nouvelle)
    assert remplacee.status_code == 200, remplacee.text
    assert remplacee.json()["parDefaut"] is False and len(remplacee.json()["lignes"]) == 1
    url = "/api/comptabilite/etats/sycebnl/compte-resultat"
    cr = (await client.get(url, headers=t.headers, params={**params, "exercice": N})).json()
    assert _rubriques(cr, "produits") == {"SUBVENTIONS_EXPLOITATION": {"7581": (Decimal(15000), Decimal(0))}}
    flux = (await client.get("/api/comptabilite/etats/sycebnl/flux-tresorerie", headers=t.headers,
                             params={**params, "exercice": N})).json()
    lignes = {p["libelle"]: _d(p["montantN"]) for s in flux["sections"] for p in s["postes"]}
    assert lignes["Subventions d'exploitation reçues"] == 15000 and lignes[
        "Dons et libéralités reçus (générosité du public)"] == 0

    retour = await client.put(CORRESPONDANCE, headers=t.headers, params=params, json={"lignes": []})
    assert retour.status_code == 200 and retour.json()["parDefaut"] is True
    cr = (await client.get(url, headers=t.headers, params={**params, "exercice": N})).json()
    assert _rubriques(cr, "produits") == {"DONS": {"7581": (Decimal(15000), Decimal(0))}}
    audits = (await db.execute(select(AuditLog).where(AuditLog.entite_type == "CorrespondanceSycebnl",
                                                      AuditLog.organisation_id == org.id))).scalars().all()
    assert len(audits) == 2


async def test_statements_headings_and_notes_over_two_years(client, factory, db):
    b = await _bureau(factory)
    await _activite(client, factory, db, b)
    params = {"organisationId": str(b["org"].id), "exercice": N}
    lire = b["commissaire"].headers

    bilan = (await client.get("/api/comptabilite/etats/sycebnl/bilan", headers=lire, params=params)).json()
    assert bilan["equilibre"] is True
    actif, passif = _rubriques(bilan, "actif"), _rubriques(bilan, "passif")
    assert actif["IMMOBILISATIONS"] == {"244": (Decimal(450000), Decimal(450000))}
    assert passif["FONDS_DEDIES"] == {"165": (Decimal(180000), Decimal(300000))}
    assert passif["EMPRUNTS"] == {"182": (Decimal(500000), Decimal(500000))}
    assert passif["DETTES"] == {"401": (Decimal(20000), Decimal(0))}
    # N−1: the subsidy, 800 000; N: dues 65 000 + donation 60 000 + released fund 120 000 − aid 35 000 − 70 000.
    assert passif["RESULTAT_EXERCICE"] == {None: (Decimal(140000), Decimal(800000))}
    # N−1 was never closed (no closing entry): its result stays apart, not added to N's.
    assert passif["RESULTATS_ANTERIEURS"] == {None: (Decimal(800000), Decimal(0))}

    cr = (await client.get("/api/comptabilite/etats/sycebnl/compte-resultat", headers=lire, params=params)).json()
    produits = _rubriques(cr, "produits")
    assert produits["COTISATIONS"] == {"7061": (Decimal(65000), Decimal(0))}
    assert produits["DONS"] == {"7581": (Decimal(60000), Decimal(0))}
    assert produits["REPORT_FONDS_DEDIES"] == {"7925": (Decimal(120000), Decimal(0))}
    assert produits["SUBVENTIONS_EXPLOITATION"] == {"711": (Decimal(0), Decimal(800000))}
    assert _rubriques(cr, "charges")["AIDES_BENEFICIAIRES"] == {"6581": (Decimal(35000), Decimal(0))}
    assert (_d(cr["resultatN"]), _d(cr["resultatN1"])) == (Decimal(140000), Decimal(800000))

    flux = (await client.get("/api/comptabilite/etats/sycebnl/flux-tresorerie", headers=lire, params=params)).json()
    lignes = {p["libelle"]: (_d(p["montantN"]), _d(p["montantN1"])) for s in flux["sections"] for p in s["postes"]}
    assert lignes["Encaissements reçus des membres (cotisations, droits d'adhésion)"] == (65000, 0)
    assert lignes["Dons et libéralités reçus (générosité du public)"] == (60000, 0)
    assert lignes["Subventions d'exploitation reçues"] == (0, 800000)
    assert lignes["Aides et secours versés aux bénéficiaires"] == (-35000, 0)
    assert lignes["Décaissements aux fournisseurs"] == (-50000, 0)
    assert lignes["Acquisitions et cessions d'immobilisations"] == (0, -450000)
    assert lignes["Emprunts reçus nets des remboursements"] == (0, 500000)
    assert lignes["Apports, fonds dédiés et subventions d'investissement"] == (0, 300000)
    assert (_d(flux["tresorerieOuvertureN"]), _d(flux["tresorerieClotureN"])) == (1150000, 1190000)
    assert flux["concordance"] is True and _d(flux["soldesClasse5N1"]) == 1150000

    # Each heading names the line(s) of the act's model statements it feeds, in the model's order.
    refs = {r["code"]: r["reference"] for r in [*bilan["actif"], *bilan["passif"], *cr["charges"], *cr["produits"]]}
    assert (refs["FONDS_DEDIES"], refs["EMPRUNTS"], refs["RESULTAT_EXERCICE"], refs["DETTES"]) == (
        "CW–CX", "DA–DB", "CH", "DF–DI")
    assert (refs["COTISATIONS"], refs["DONS"], refs["SUBVENTIONS_EXPLOITATION"], refs["AIDES_BENEFICIAIRES"]) == (
        "RA", "RC", "RF", "TI")
    for etat, cote in ((cr, "produits"), (cr, "charges"), (bilan, "passif")):
        ordre = [r["reference"][:2] for r in etat[cote]]
        assert ordre == sorted(ordre), (cote, ordre)
    par_ref = {p["reference"]: p["libelle"] for s in flux["sections"] for p in s["postes"]}
    assert par_ref["FA"].startswith("Encaissements reçus des membres") and par_ref["FC"].startswith("Dons")
    assert [s["reference"] for s in flux["sections"]] == ["ZB", "ZC", "ZD+ZE"]

    notes = {n["numero"]: n for n in (await client.get("/api/comptabilite/etats/sycebnl/notes", headers=lire,
                                                       params=params)).json()["notes"]}
    assert notes[1]["lignes"] == [["244", "Matériel et mobilier", "450000.00", "0.00", "0.00", "450000.00"]]
    assert ["401", "Fournisseurs", "-20000.00", "0.00"] in notes[2]["lignes"]
    assert notes[3]["lignes"][0] == ["165", "Fonds dédiés sur subventions", "300000.00", "120000.00", "0.00",
                                     "180000.00"]
    assert notes[4]["lignes"] == [["7581", "Dons et libéralités reçus", "60000.00", "0.00"],
                                  [None, "dont reçus en ESPECES (paiements de nature DON)", "60000.00", None]]
    budget = {lg[1]: lg[3:] for lg in notes[5]["lignes"]}
    assert budget == {"Cotisations": ["100000.00", "65000.00", "35000.00", "65,00 %"],
                      "Aides": ["50000.00", "35000.00", "15000.00", "70,00 %"]}
    assert notes[6]["lignes"] == [] and "personnel" in notes[6]["commentaire"]
    assert notes[7]["lignes"] == [] and "nature" in notes[7]["commentaire"]
    # Volunteer time from the register, off the balance sheet: the books above did not move for it.
    assert notes[8]["lignes"] == [[f"N ({N})", "1", "6.50", "5200.00"], [f"N−1 ({N - 1})", "1", "12.00", "9600.00"]]

    # The previous year: its own N column is this year's N−1 (the property test checks it at random).
    precedent = (await client.get("/api/comptabilite/etats/sycebnl/bilan", headers=lire,
                                  params={**params, "exercice": N - 1})).json()
    assert _d(precedent["totalActifN"]) == _d(bilan["totalActifN1"]) and precedent["equilibre"] is True


async def test_statements_refuse_a_future_year_an_invisible_organisation_and_a_plain_member(client, factory, db):
    b = await _bureau(factory)
    autre = await _bureau(factory, "Mutuelle des pêcheurs de Mbour")
    url = "/api/comptabilite/etats/sycebnl/bilan"
    futur = await client.get(url, headers=b["tresorier"].headers,
                             params={"organisationId": str(b["org"].id), "exercice": N + 1})
    assert futur.status_code == 400 and "pas commencé" in futur.json()["detail"]
    hors = await client.get(url, headers=b["tresorier"].headers,
                            params={"organisationId": str(b["org"].id), "exercice": 1800})
    assert hors.status_code == 400 and hors.headers["content-type"].startswith("application/problem+json")
    cache = await client.get(url, headers=b["tresorier"].headers,
                             params={"organisationId": str(autre["org"].id), "exercice": N})
    assert cache.status_code == 404
    membre = await client.get(url, headers=b["membre"].headers, params={"organisationId": str(b["org"].id),
                                                                         "exercice": N})
    assert membre.status_code == 403


async def test_pdf_to_sign_and_workbook_of_each_statement(client, factory, db):
    b = await _bureau(factory)
    await _activite(client, factory, db, b)
    params = {"organisationId": str(b["org"].id), "exercice": N}
    titres = {"bilan": "Bilan (SYCEBNL)", "compte-resultat": "Compte de résultat (SYCEBNL)",
              "flux-tresorerie": "Tableau des flux de trésorerie (SYCEBNL)", "notes": "Notes annexes (SYCEBNL)"}
    for nom, titre in titres.items():
        url = f"/api/comptabilite/etats/sycebnl/{nom}"
        pdf = await client.get(url, headers=b["tresorier"].headers, params={**params, "format": "pdf"})
        assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf", pdf.text
        text = pdf_text(pdf.content)
        assert titre in text and "Le Commissaire aux comptes" in text and "Signature et cachet" in text, nom
        assert f"Exercice {N}" in text or f"exercice {N}" in text, nom
        assert pdf_page_image(pdf.content).getbbox() is not None
        if os.environ.get("UNIONFLOW_KEEP_PAGES"):
            _keep(pdf.content, f"sycebnl-{nom}")
        xlsx = await client.get(url, headers=b["tresorier"].headers, params={**params, "format": "xlsx"})
        assert xlsx.status_code == 200, xlsx.text
        sheet = load_workbook(io.BytesIO(xlsx.content)).active
        assert sheet is not None and titre in str(sheet["A1"].value)
    flux = pdf_text((await client.get("/api/comptabilite/etats/sycebnl/flux-tresorerie", headers=b["tresorier"].headers,
                                      params={**params, "format": "pdf"})).content)
    assert "Concordance" in flux and "Méthode directe" in flux
    assert "ZA" in flux and "ZG" in flux and "FA" in flux
    cr = pdf_text((await client.get("/api/comptabilite/etats/sycebnl/compte-resultat", headers=b["tresorier"].headers,
                                    params={**params, "format": "pdf"})).content)
    assert "RA · Cotisations" in cr and "RC · Dons" in cr and "XE" in cr


def _keep(content: bytes, nom: str) -> None:
    """UNIONFLOW_KEEP_PAGES=<folder>: every page as PNG, to look at it (docs/etats/ keeps them)."""
    import pypdfium2 as pdfium

    folder = Path(os.environ["UNIONFLOW_KEEP_PAGES"])
    folder.mkdir(parents=True, exist_ok=True)
    total = len(pdfium.PdfDocument(content))
    for page in range(total):
        pdf_page_image(content, page, 1.2).save(folder / f"{nom}-{page + 1}.png")
