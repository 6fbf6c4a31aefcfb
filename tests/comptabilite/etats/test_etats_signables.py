"""Statements fit to sign (issue 20, item 5): every PDF page says what it is and where it stands ("Page n / N",
organisation, statement, period, who printed it), signature blocks close each statement, ledger lines name the
member and the receipt, and the balance sheet flags a treasury account in credit."""

from __future__ import annotations

import io
import os
import re
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from tests.factories.comptabilite import ecriture, journal, passer
from tests.factories.cotisations import cotisation
from tests.pdf import pdf_page_image, pdf_text
from unionflow.comptabilite.pieces import libelles as libelles_pieces
from unionflow.comptabilite.service import ZERO, Ligne, poster_ecriture
from unionflow.models import CompteComptable, JournalComptable

TODAY = datetime.now(UTC).date()
ETATS = {"balance": "Balance générale", "grand-livre": "Grand livre", "journal": "Journal", "bilan": "Bilan",
         "compte-resultat": "Compte de résultat"}
SIGNATAIRES = ("Le Trésorier", "Le Président", "Le Commissaire aux comptes")


async def _mutuelle(client, factory, db, paiements: int):
    org = await factory.organisation(nom="Mutuelle des enseignants de Thiès")
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.prenom, member.membre.nom = "Awa", "Diop"
    await db.flush()
    recus = []
    for i in range(paiements):
        dues = await cotisation(db, member.membre, org, 2500, mois=(i % 12) + 1)
        paid = await client.post("/api/paiements", headers=treasurer.headers, json={
            "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2500",
            "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
        assert paid.status_code == 201, paid.text
        recus.append((paid.json()["numeroRecu"], (i % 12) + 1))
    return org, treasurer, recus


async def test_ledger_and_journal_lines_name_the_member_and_the_receipt(client, factory, db, monkeypatch):
    # One payment per read: the batching of large ledgers (libelles_pieces.LOT_IDS) takes the same path.
    monkeypatch.setattr(libelles_pieces, "LOT_IDS", 1)
    org, treasurer, recus = await _mutuelle(client, factory, db, 2)
    url = f"/api/comptabilite/etats/%s?organisationId={org.id}"
    ledger = (await client.get(url % "grand-livre", headers=treasurer.headers)).json()
    caisse = next(c for c in ledger["comptes"] if c["numeroCompte"] == "571")
    lignes = {m["pieceReference"]: m for m in caisse["mouvements"]}
    for recu, mois in recus:
        ligne = lignes[recu]
        assert ligne["libelle"] == f"Cotisation {mois:02d}/{TODAY.year} — Awa Diop — {recu} (espèces)"
        assert ligne["membre"] == "Awa Diop"
    produits = next(c for c in ledger["comptes"] if c["numeroCompte"] == "7061")
    assert all("Awa Diop" in m["libelle"] and m["pieceReference"] in m["libelle"] for m in produits["mouvements"])
    assert not any("ESPECES" in m["libelle"] for c in ledger["comptes"] for m in c["mouvements"])

    journal_etat = (await client.get(url % "journal", headers=treasurer.headers)).json()
    labels = [lg["libelle"] for e in journal_etat["ecritures"] for lg in e["lignes"]]
    assert f"Cotisation 01/{TODAY.year} — Awa Diop — {recus[0][0]} (espèces)" in labels
    assert f"Encaissement {recus[0][0]} — Awa Diop" in [e["libelle"] for e in journal_etat["ecritures"]]
    xlsx = await client.get(url % "grand-livre" + "&format=xlsx", headers=treasurer.headers)
    sheet = load_workbook(io.BytesIO(xlsx.content)).active
    assert sheet["A2"].value.endswith(f"par {treasurer.user.email}")
    assert any(c.value == f"Cotisation 02/{TODAY.year} — Awa Diop — {recus[1][0]} (espèces)" for c in sheet["D"])
    text = pdf_text((await client.get(url % "journal" + "&format=pdf", headers=treasurer.headers)).content)
    assert "Awa Diop" in text and recus[1][0] in text and "(ESPECES)" not in text


async def test_every_statement_pdf_has_heading_page_numbers_and_signatures(client, factory, db):
    # Enough receipts for the ledger and the journal to run over several pages.
    org, treasurer, _ = await _mutuelle(client, factory, db, 40)
    for nom, titre in ETATS.items():
        # The day is read around the request, not at import: a run may cross midnight.
        jours = {f"{datetime.now(UTC).date():%d/%m/%Y}"}
        response = await client.get(f"/api/comptabilite/etats/{nom}?organisationId={org.id}&format=pdf",
                                    headers=treasurer.headers)
        jours.add(f"{datetime.now(UTC).date():%d/%m/%Y}")
        assert response.status_code == 200, (nom, response.text)
        text = pdf_text(response.content)
        numeros = re.findall(r"Page (\d+) / (\d+)", text)
        total = int(numeros[0][1])
        assert numeros == [(str(n), str(total)) for n in range(1, total + 1)], (nom, numeros)
        # The heading on every page: organisation, statement, period, who printed it and when.
        assert text.count("Mutuelle des enseignants de Thiès") >= 2 * total, nom
        assert sum(text.count(f"Édité le {jour}") for jour in jours) == total, nom
        assert text.count(f"par {treasurer.user.email}") == total, nom
        assert ("Période du 01/01/" in text) or ("Situation au" in text and nom == "bilan"), nom
        assert titre in text
        for qui in SIGNATAIRES:
            assert qui in text, (nom, qui)
        assert "Vu et arrêté" in text and "Signature et cachet" in text
        if nom in ("grand-livre", "journal"):
            assert total >= 2, nom
            # Column headings repeated after each page break.
            assert text.count("Libellé") >= total, nom
        image = pdf_page_image(response.content, total - 1)
        assert image.getbbox() is not None
        if os.environ.get("UNIONFLOW_KEEP_PAGES"):
            _keep(response.content, nom, total)


def _keep(content: bytes, nom: str, total: int) -> None:
    """UNIONFLOW_KEEP_PAGES=<folder>: the pages as PNG, to look at them."""
    folder = Path(os.environ["UNIONFLOW_KEEP_PAGES"])
    folder.mkdir(parents=True, exist_ok=True)
    for page in range(total):
        pdf_page_image(content, page, 1.2).save(folder / f"{nom}-{page + 1}.png")


async def test_balance_sheet_flags_a_cash_account_in_credit(client, factory, db):
    org, treasurer, _ = await _mutuelle(client, factory, db, 1)
    comptes = {c["numeroCompte"]: c["id"] for c in (await client.get(
        f"/api/comptabilite/comptes?organisationId={org.id}", headers=treasurer.headers)).json()}
    if "6222" not in comptes:
        created = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
            "organisationId": str(org.id), "numeroCompte": "6222", "libelle": "Locations de bâtiments"})
        comptes["6222"] = created.json()["id"]
    od = await journal(client, treasurer.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    refused = await passer(client, factory, org, treasurer.headers, ecriture(
        od["id"], [(comptes["6222"], "595000", "0"), (comptes["571"], "0", "595000")], TODAY.isoformat()))
    # A manual entry never takes the cash box below zero (saisies/): refused at the request.
    assert refused.status_code == 400 and "Solde insuffisant" in refused.json()["detail"], refused.text
    # Books kept before that rule (or written by a bug) may still show it: the auditor must see it flagged.
    await poster_ecriture(db, journal=await db.get(JournalComptable, uuid.UUID(od["id"])), date_ecriture=TODAY,
                          libelle="Loyer payé en espèces (avant la règle)", lignes=[
                              Ligne(await db.get(CompteComptable, uuid.UUID(comptes["6222"])), Decimal(595000), ZERO),
                              Ligne(await db.get(CompteComptable, uuid.UUID(comptes["571"])), ZERO, Decimal(595000))])

    bilan = (await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}",
                              headers=treasurer.headers)).json()
    assert bilan["equilibre"] is True
    (alerte,) = bilan["alertes"]
    assert alerte["code"] == "SOLDE_CREDITEUR_TRESORERIE" and alerte["numeroCompte"] == "571"
    assert Decimal(str(alerte["solde"])) == Decimal("-592500")
    assert alerte["message"].replace("\u00a0", " ") == "Solde créditeur anormal : 571 Caisse −592 500 FCFA"
    content = (await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}&format=pdf",
                                headers=treasurer.headers)).content
    assert "ATTENTION : Solde créditeur anormal : 571 Caisse −592 500 FCFA" in pdf_text(content)
    if os.environ.get("UNIONFLOW_KEEP_PAGES"):
        _keep(content, "bilan-alerte", 1)


async def test_no_warning_when_treasury_is_in_debit(client, factory, db):
    org, treasurer, _ = await _mutuelle(client, factory, db, 1)
    bilan = (await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}",
                              headers=treasurer.headers)).json()
    assert bilan["alertes"] == []


def test_object_of_a_payment_in_words():
    c, a = object(), object()
    assert libelles_pieces.objet([(c, None, 2026, 3)]) == "Cotisation 03/2026"
    assert libelles_pieces.objet([(c, None, 2026, 1), (c, None, 2026, 2)]) == "Cotisations 01/2026, 02/2026"
    six = [(c, None, 2026, m) for m in range(1, 7)]
    assert libelles_pieces.objet(six) == "Cotisations 01/2026 à 06/2026 (6)"
    annuelle_et_adhesion = [(c, None, 2026, None), (None, a, None, None)]
    assert libelles_pieces.objet(annuelle_et_adhesion) == "Cotisation 2026 + Droits d'adhésion"
    assert libelles_pieces.objet([]) == "Avance sur cotisations"
    assert libelles_pieces.codes_en_mots("Extourne: Reçu REC-1 (ESPECES)") == "Extourne: Reçu REC-1 (espèces)"
    assert libelles_pieces.codes_en_mots("Versement VER-1 (WAVE)") == "Versement VER-1 (Wave)"


async def test_bank_within_its_declared_overdraft_is_listed_as_authorised(client, factory, db):
    """A bank treasury declared with an overdraft: in credit within it, the bilan lists it as authorised (the auditor
    still sees it, with its limit); beyond it, as abnormal."""
    org, treasurer, _ = await _mutuelle(client, factory, db, 1)
    bank = await client.post("/api/tresoreries", headers=treasurer.headers, json={
        "organisationId": str(org.id), "type": "BANQUE", "nom": "CBAO", "numeroCompte": "5211",
        "decouvertAutorise": "100000"})
    assert bank.status_code == 201, bank.text
    comptes = {c["numeroCompte"]: c["id"] for c in (await client.get(
        f"/api/comptabilite/comptes?organisationId={org.id}", headers=treasurer.headers)).json()}
    created = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "6222", "libelle": "Locations de bâtiments"})
    comptes.setdefault("6222", created.json().get("id"))
    od = await journal(client, treasurer.headers, org.id, "OD", "OPERATIONS_DIVERSES")

    async def depense(montant: str) -> Any:
        return await passer(client, factory, org, treasurer.headers, ecriture(
            od["id"], [(comptes["6222"], montant, "0"), (comptes["5211"], "0", montant)], TODAY.isoformat()))

    async def alertes() -> list[dict]:
        return (await client.get(f"/api/comptabilite/etats/bilan?organisationId={org.id}",
                                 headers=treasurer.headers)).json()["alertes"]

    assert (await depense("60000")).status_code == 200
    (alerte,) = await alertes()
    assert alerte["code"] == "DECOUVERT_AUTORISE" and alerte["numeroCompte"] == "5211"
    assert "plafond déclaré 100" in alerte["message"].replace("\u00a0", " ")
    # A manual entry never takes a bank beyond its overdraft (saisies/): refused at the request.
    beyond = await depense("50000")
    assert beyond.status_code == 400 and "découvert autorisé" in beyond.json()["detail"], beyond.text
    # The overdraft reduced below the balance: the bilan lists the bank as abnormal.
    reduced = await client.put(f"/api/tresoreries/{bank.json()['id']}", headers=treasurer.headers,
                               json={"decouvertAutorise": "50000"})
    assert reduced.status_code == 200, reduced.text
    (alerte,) = await alertes()
    assert alerte["code"] == "SOLDE_CREDITEUR_TRESORERIE" and Decimal(str(alerte["solde"])) == Decimal("-60000")
