"""The livre d'inventaire ties to the SYCEBNL balance sheet account by account, with the detail of the members'
credits, and lists apart the unpaid dues and the earmarked funds; the general-assembly pack carries the statements,
the activity figures (equal to the areas' own), the register of donations' totals and the 45-day flag."""

from __future__ import annotations

import io
import os
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from tests.factories.analytics import evenement
from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.cotisations import cotisation
from tests.factories.finance import demande_aide
from tests.factories.paiements import encaisser
from tests.pdf import pdf_page_image, pdf_text

NOW = datetime.now(UTC)
TODAY = NOW.date()
N = TODAY.year
INVENTAIRE = "/api/comptabilite/etats/inventaire"
ASSEMBLEE = "/api/comptabilite/assemblee"
BILAN = "/api/comptabilite/etats/sycebnl/bilan"


async def _bureau(factory: Any) -> dict[str, Any]:
    org = await factory.organisation(nom="Association des ressortissants de Podor")
    roles = {"tresorier": "TRESORIER", "president": "PRESIDENT", "commissaire": "COMMISSAIRE_AUX_COMPTES",
             "admin": "ADMIN_ORGANISATION", "membre": None, "crediteur": None}
    return {"org": org, **{k: await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", *([r] if r else [])])
                            for k, r in roles.items()}}


async def _annee(client: Any, factory: Any, db: Any, b: dict[str, Any]) -> None:
    """This year: dues paid by transfer, a payment that pays nothing (the member's credit), a donation for a purpose,
    dues fallen due and unpaid, an aid granted and paid out, an event with its registrations."""
    org, t = b["org"], b["tresorier"]
    await encaisser(client, db, org, t, b["membre"], "25000", "VIREMENT")
    avoir = await client.post("/api/paiements", headers=t.headers, json={
        "membreId": str(b["crediteur"].membre.id), "organisationId": str(org.id), "montant": "15000",
        "methode": "ESPECES", "cibles": [], "avance": True})
    assert avoir.status_code == 201, avoir.text
    don = await client.post("/api/paiements/recettes", headers=t.headers, json={
        "nature": "DON", "membreId": str(b["membre"].membre.id), "organisationId": str(org.id),
        "montant": "60000", "methode": "ESPECES", "affectation": "Construction du puits"})
    assert don.status_code == 201, don.text
    await cotisation(db, b["membre"].membre, org, 7000, echeance=TODAY)
    aide = await demande_aide(db, org, b["membre"].membre, accorde="20000")
    aide.date_decision = NOW
    await db.flush()
    versement = await client.post("/api/versements", headers=t.headers, json={
        "organisationId": str(org.id), "montant": "20000", "mode": "MANUEL", "objetType": "AIDE",
        "objetId": str(aide.id), "motif": "Aide décès", "beneficiaireNom": "Awa Diop"})
    assert versement.status_code == 201, versement.text
    confirme = await client.post(f"/api/versements/{versement.json()['id']}/confirmer", headers=b["admin"].headers,
                                 json={"referenceExterne": "VIR-AIDE-1"})
    assert confirme.status_code == 200 and confirme.json()["statut"] == "REUSSI", confirme.text
    await evenement(factory, org, NOW.replace(hour=min(NOW.hour, 21)), None, "TERMINE",
                    inscriptions={"CONFIRMEE": 2, "ANNULEE": 1})


def _d(value: Any) -> Decimal:
    return Decimal(str(value))


def _comptes(etat: dict[str, Any], cote: str) -> dict[str | None, dict[str, Any]]:
    return {c["numeroCompte"]: c for r in etat[cote] for c in r["comptes"]}


async def test_inventory_ties_to_the_balance_sheet_with_the_registers_detail(client, factory, db):
    b = await _bureau(factory)
    await _annee(client, factory, db, b)
    org, t = b["org"], b["tresorier"]
    materiel = await compte(client, t.headers, org.id, "244", "Matériel et mobilier")
    fournisseur = await compte(client, t.headers, org.id, "401", "Fournisseurs")
    od = await journal(client, t.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    achat = await passer(client, factory, org, t.headers, ecriture(
        od["id"], [(materiel["id"], "5000", "0"), (fournisseur["id"], "0", "5000")], TODAY.isoformat()))
    assert achat.status_code == 200, achat.text
    params = {"organisationId": str(org.id), "exercice": N}
    lire = b["commissaire"].headers
    reponse = await client.get(INVENTAIRE, headers=lire, params=params)
    assert reponse.status_code == 200, reponse.text
    inventaire = reponse.json()
    bilan = (await client.get(BILAN, headers=lire, params=params)).json()
    assert _d(inventaire["totalActif"]) == _d(bilan["totalActifN"]) == Decimal(85000)
    assert _d(inventaire["totalPassif"]) == _d(bilan["totalPassifN"]) and inventaire["equilibre"] is True
    for cote in ("actif", "passif"):  # every rubric adds up to its accounts, and the rubrics to the total
        assert all(_d(r["total"]) == sum(_d(c["solde"]) for c in r["comptes"]) for r in inventaire[cote])
    actif, passif = _comptes(inventaire, "actif"), _comptes(inventaire, "passif")
    # Cash: the donation and the credit in cash; the bank: the dues less the aid paid out.
    assert _d(actif["571"]["solde"]) == 75000 and _d(actif["521"]["solde"]) == 5000
    assert _d(actif["244"]["solde"]) == 5000 and _d(passif["401"]["solde"]) == 5000  # equipment bought on credit
    credit = passif["4191"]
    assert _d(credit["solde"]) == 15000 and credit["detailsConcordent"] is True
    assert [(d["libelle"], _d(d["montant"])) for d in credit["details"]] == [
        (f"{b['crediteur'].membre.prenom} {b['crediteur'].membre.nom}", Decimal(15000))]
    impayes, fonds = inventaire["horsBilan"]
    assert [(d["nombre"], _d(d["montant"])) for d in impayes["details"]] == [(1, Decimal(7000))]
    assert [(d["libelle"], _d(d["montant"])) for d in fonds["details"]] == [("Construction du puits",
                                                                              Decimal(60000))]

    pdf = await client.get(INVENTAIRE, headers=lire, params={**params, "format": "pdf"})
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF"), pdf.text
    texte = pdf_text(pdf.content)
    assert "Livre d'inventaire" in texte and "Le Commissaire aux comptes" in texte and "Construction du puits" in texte
    assert pdf_page_image(pdf.content).getbbox() is not None
    _garder(pdf.content, "inventaire")
    xlsx = await client.get(INVENTAIRE, headers=lire, params={**params, "format": "xlsx"})
    feuille = load_workbook(io.BytesIO(xlsx.content)).active
    assert feuille is not None and "Livre d'inventaire" in str(feuille["A1"].value)


async def test_assembly_pack_statements_figures_and_donations(client, factory, db):
    b = await _bureau(factory)
    await _annee(client, factory, db, b)
    assemblee = date(N + 1, 3, 31)
    params = {"organisationId": str(b["org"].id), "exercice": N, "dateAssemblee": assemblee.isoformat()}
    reponse = await client.get(ASSEMBLEE, headers=b["commissaire"].headers, params=params)
    assert reponse.status_code == 200, reponse.text
    dossier = reponse.json()
    chiffres = {c["code"]: c["valeurN"] for c in dossier["activite"]}
    membres = await client.get("/api/membres", headers=b["tresorier"].headers,
                               params={"organisationId": str(b["org"].id), "size": 100})
    assert int(chiffres["MEMBRES_ACTIFS"]) == membres.json()["totalElements"] == 6
    stats = (await client.get("/api/cotisations/statistiques/periode", headers=b["tresorier"].headers,
                              params={"annee": N})).json()
    assert _d(chiffres["COTISATIONS_APPELEES"]) == _d(stats["montantDu"]) == 32000
    assert _d(chiffres["COTISATIONS_ENCAISSEES"]) == _d(stats["montantCollecte"]) == 25000
    assert chiffres["TAUX_RECOUVREMENT"] == "78.1"
    assert (_d(chiffres["AIDES_ACCORDEES"]), _d(chiffres["AIDES_VERSEES"])) == (20000, 20000)
    assert (chiffres["EVENEMENTS_TENUS"], chiffres["INSCRIPTIONS"]) == ("1", "2")
    assert all(c["valeurN1"] in ("0", "0.00", "—") for c in dossier["activite"])
    assert [(d["forme"], d["nombreN"], _d(d["montantN"])) for d in dossier["dons"]] == [
        ("ESPECES", 1, Decimal(60000))]
    assert dossier["pretLe"] == TODAY.isoformat()
    assert dossier["delaiRespecte"] is ((assemblee - TODAY).days >= 45)

    pdf = await client.get(ASSEMBLEE, headers=b["commissaire"].headers, params={**params, "format": "pdf"})
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF"), pdf.text
    texte = pdf_text(pdf.content)
    for attendu in ("Dossier de l'assemblée générale", f"Assemblée générale du {assemblee:%d/%m/%Y}",
                    "Bilan (SYCEBNL)", "Compte de résultat (SYCEBNL)", "Tableau des flux de trésorerie (SYCEBNL)",
                    "Exécution du budget", "Chiffres d'activité", "Registre des dons et legs", "Le Président",
                    "Le Trésorier", "Le Commissaire aux comptes"):
        assert attendu in texte, attendu
    _garder(pdf.content, "assemblee")


async def test_the_45_day_flag_both_ways_and_who_reads(client, factory, db):
    b = await _bureau(factory)
    base = {"organisationId": str(b["org"].id), "exercice": N - 1}
    # -3: a pack printed after its assembly (a copy for the file) says so in words.
    for jours, respecte, texte in ((45, True, "45 jours avant l'assemblée"), (44, False, "44 jours avant"),
                                   (-3, False, "dossier prêt 3 jours après la date de l'assemblée")):
        quand = (TODAY + timedelta(days=jours)).isoformat()
        # The year before last: its assembly date may be in the past whatever today's date (not in its year).
        annee = {**base, "exercice": N - 2} if jours < 0 else base
        dossier = await client.get(ASSEMBLEE, headers=b["tresorier"].headers, params={**annee, "dateAssemblee": quand})
        assert dossier.status_code == 200, dossier.text
        assert (dossier.json()["delaiRespecte"], dossier.json()["joursAvantAssemblee"]) == (respecte, jours)
        couverture = pdf_text((await client.get(ASSEMBLEE, headers=b["tresorier"].headers, params={
            **annee, "dateAssemblee": quand, "format": "pdf"})).content)
        assert ("Délai respecté" in couverture) is respecte and ("NON respecté" in couverture) is not respecte
        assert texte in " ".join(couverture.split()), couverture
    trop_tot = await client.get(ASSEMBLEE, headers=b["tresorier"].headers,
                                params={**base, "dateAssemblee": date(N - 1, 12, 31).isoformat()})
    assert trop_tot.status_code == 400 and "après sa clôture" in trop_tot.json()["detail"]
    autre = await factory.organisation()
    quand = (TODAY + timedelta(days=60)).isoformat()
    for url, params in ((INVENTAIRE, base), (ASSEMBLEE, {**base, "dateAssemblee": quand})):
        assert (await client.get(url, headers=b["commissaire"].headers, params=params)).status_code == 200
        assert (await client.get(url, headers=b["membre"].headers, params=params)).status_code == 403
        cachee = await client.get(url, headers=b["tresorier"].headers,
                                  params={**params, "organisationId": str(autre.id)})
        assert cachee.status_code == 404


async def test_dues_unpaid_at_a_past_year_end_stay_listed_once_paid_since(client, factory, db):
    b = await _bureau(factory)
    org, t = b["org"], b["tresorier"]
    decembre = await cotisation(db, b["membre"].membre, org, 9000, echeance=date(N - 1, 12, 15), annee=N - 1,
                                mois=12)
    paye = await client.post("/api/paiements", headers=t.headers, json={
        "membreId": str(b["membre"].membre.id), "organisationId": str(org.id), "montant": "9000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(decembre.id)}]})
    assert paye.status_code == 201, paye.text

    def impayes(etat: dict[str, Any]) -> list[tuple[int, Decimal]]:
        return [(d["nombre"], _d(d["montant"])) for d in etat["horsBilan"][0]["details"]]

    lire = b["commissaire"].headers
    precedent = (await client.get(INVENTAIRE, headers=lire, params={"organisationId": str(org.id),
                                                                     "exercice": N - 1})).json()
    assert impayes(precedent) == [(1, Decimal(9000))]  # owed on 31 December, paid in the new year
    courant = (await client.get(INVENTAIRE, headers=lire, params={"organisationId": str(org.id),
                                                                   "exercice": N})).json()
    assert impayes(courant) == []


def _garder(content: bytes, nom: str) -> None:
    """UNIONFLOW_KEEP_PAGES=<folder>: the first page as PNG, to look at it (docs/etats/ keeps them)."""
    if os.environ.get("UNIONFLOW_KEEP_PAGES"):
        folder = Path(os.environ["UNIONFLOW_KEEP_PAGES"])
        folder.mkdir(parents=True, exist_ok=True)
        pdf_page_image(content, 0, 1.2).save(folder / f"{nom}-1.png")
