"""Accounting statements over generated activity: balanced trial balance, ledger running balances, balance sheet
equal on both sides, income statement, and the PDF/XLSX renderings a treasurer prints or opens in Excel."""

from __future__ import annotations

import io
import random
from datetime import UTC, datetime
from decimal import Decimal

from openpyxl import load_workbook

from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.cotisations import cotisation
from tests.factories.paiements import defaire
from tests.pdf import pdf_text

TODAY = datetime.now(UTC).date()


async def _activite(client, factory, db, seed: int):
    """Members paying dues in cash and by transfer, some payments cancelled, and expenses booked by hand."""
    rng = random.Random(seed)
    org = await factory.organisation(nom="Fédération des mutuelles de Kaolack")
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    # Undoing a payment takes a second person (issue 19): the president approves.
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    encaisse = {"571": Decimal(0), "521": Decimal(0)}
    cotisations = Decimal(0)
    for _ in range(rng.randint(3, 6)):
        member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
        due = Decimal(rng.choice([2500, 5000, 12500, 100000]))
        dues = await cotisation(db, member.membre, org, due)
        montant = Decimal(rng.randint(1, int(due) // 500) * 500)
        methode = rng.choice(["ESPECES", "VIREMENT"])
        body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": str(montant),
                "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
        if methode == "VIREMENT":
            body["referenceExterne"] = f"VIR-{rng.randint(1000, 9999)}"
        paid = await client.post("/api/paiements", headers=treasurer.headers, json=body)
        assert paid.status_code == 201, paid.text
        if rng.random() < 0.3:
            cancelled = await defaire(client, f"/api/paiements/{paid.json()['id']}/annuler", treasurer, president)
            assert cancelled.status_code == 200, cancelled.text
            continue
        encaisse["571" if methode == "ESPECES" else "521"] += montant
        cotisations += montant
    loyer = await compte(client, treasurer.headers, org.id, "6222", "Locations de bâtiments")
    caisse_j = await journal(client, treasurer.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    comptes = (await client.get(f"/api/comptabilite/comptes?organisationId={org.id}",
                                headers=treasurer.headers)).json()
    # Paid from the treasury that has the money: a manual entry never takes one below zero (saisies/).
    tresor = max(encaisse, key=lambda numero: encaisse[numero])
    depense = min(Decimal(rng.randint(1, 4) * 1000), encaisse[tresor])
    if depense > 0:
        compte_tresor = next(c for c in comptes if c["numeroCompte"] == tresor)
        posted = await passer(client, factory, org, treasurer.headers, ecriture(caisse_j["id"], [
            (loyer["id"], str(depense), "0"), (compte_tresor["id"], "0", str(depense))], TODAY.isoformat()))
        assert posted.status_code == 200, posted.text
        encaisse[tresor] -= depense
    return org, treasurer, encaisse, cotisations, depense


def _q(value: str | Decimal) -> Decimal:
    return Decimal(value).quantize(Decimal("0.01"))


async def test_statements_agree_with_generated_activity(client, factory, db):
    for seed in (1, 2, 3):
        org, treasurer, encaisse, cotisations, depense = await _activite(client, factory, db, seed)
        url = f"/api/comptabilite/etats/%s?organisationId={org.id}"

        balance = (await client.get(url % "balance", headers=treasurer.headers)).json()
        assert balance["equilibree"] is True
        t = balance["totaux"]
        assert _q(t["debitPeriode"]) == _q(t["creditPeriode"]) and _q(t["soldeDebiteur"]) == _q(t["soldeCrediteur"])
        soldes = {lg["numeroCompte"]: _q(lg["soldeDebiteur"]) - _q(lg["soldeCrediteur"]) for lg in balance["lignes"]}
        for numero, attendu in encaisse.items():
            assert soldes.get(numero, Decimal(0)) == attendu, (seed, numero)
        assert -soldes.get("7061", Decimal(0)) == cotisations
        assert balance["calculeLe"]

        ledger = (await client.get(url % "grand-livre" + "&compteId=" + next(
            lg["compteId"] for lg in balance["lignes"] if lg["numeroCompte"] == "571"),
            headers=treasurer.headers)).json()
        (caisse,) = ledger["comptes"]
        running = _q(caisse["soldeOuverture"])
        for m in caisse["mouvements"]:
            running += _q(m["debit"]) - _q(m["credit"])
            assert _q(m["solde"]) == running
        assert running == _q(caisse["soldeCloture"]) == encaisse["571"]

        bilan = (await client.get(url % "bilan", headers=treasurer.headers)).json()
        assert bilan["equilibre"] is True and _q(bilan["totalActif"]) == _q(bilan["totalPassif"])
        en_cours = next(r for r in bilan["passif"] if r["rubrique"].startswith("Résultat"))
        assert _q(en_cours["total"]) == cotisations - depense

        resultat = (await client.get(url % "compte-resultat", headers=treasurer.headers)).json()
        assert _q(resultat["totalProduits"]) == cotisations and _q(resultat["totalCharges"]) == depense
        assert _q(resultat["resultat"]) == cotisations - depense

        journal_etat = (await client.get(url % "journal", headers=treasurer.headers)).json()
        assert _q(journal_etat["totalDebit"]) == _q(journal_etat["totalCredit"]) > 0


async def test_pdf_and_xlsx_renderings(client, factory, db):
    org, treasurer, _encaisse, *_ = await _activite(client, factory, db, 7)
    pdf = await client.get(f"/api/comptabilite/etats/balance?organisationId={org.id}&format=pdf",
                           headers=treasurer.headers)
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert "attachment" in pdf.headers["content-disposition"]
    text = pdf_text(pdf.content)
    assert "Balance générale" in text and "Fédération des mutuelles de Kaolack" in text and "TOTAL" in text
    assert "FCFA" in text and "Balance équilibrée." in text

    xlsx = await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}&format=xlsx",
                            headers=treasurer.headers)
    assert xlsx.status_code == 200 and xlsx.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    sheet = load_workbook(io.BytesIO(xlsx.content)).active
    assert sheet["A4"].value == "Compte" and sheet["A4"].font.bold
    assert sheet.freeze_panes == "A5" and sheet.auto_filter.ref.startswith("A4:C")
    montants = [c for c in sheet["C"] if isinstance(c.value, int | float | Decimal)]
    assert montants and all("FCFA" in c.number_format for c in montants)
    assert any(c.value == "TOTAL ACTIF" for c in sheet["B"])

    text = pdf_text((await client.get(
        f"/api/comptabilite/etats/compte-resultat?organisationId={org.id}&format=pdf",
        headers=treasurer.headers)).content)
    assert "Compte de résultat" in text and "francs CFA" in text


async def test_xlsx_survives_control_characters_in_names(client, factory, db):
    """A name carrying a control character (typed in another tool, imported) cannot be stored in a workbook
    cell: it is dropped from the cell, not answered 500 (fuzz finding)."""
    org, treasurer, *_ = await _activite(client, factory, db, 3)
    org.nom = "Mutuelle\x0f de Kaolack"
    await db.flush()
    xlsx = await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}&format=xlsx",
                            headers=treasurer.headers)
    assert xlsx.status_code == 200, xlsx.text
    assert load_workbook(io.BytesIO(xlsx.content)).active["A2"].value.startswith("Mutuelle de Kaolack")


async def test_statements_are_for_the_bureau(client, factory, db):
    org, treasurer, *_ = await _activite(client, factory, db, 4)
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    other_org = await factory.organisation()
    outsider = await factory.actor(["USER"], organisation=other_org, org_roles=["MEMBRE", "TRESORIER"])
    url = f"/api/comptabilite/etats/balance?organisationId={org.id}"
    assert (await client.get(url, headers=member.headers)).status_code == 403
    assert (await client.get(url, headers=outsider.headers)).status_code in (403, 404)
    bad = await client.get(url + "&dateDebut=2026-12-31&dateFin=2026-01-01", headers=treasurer.headers)
    assert bad.status_code == 400
