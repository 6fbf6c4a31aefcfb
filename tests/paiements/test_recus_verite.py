"""Receipts that tell the truth (issue 19, item 4) and one receipt series per organisation (item 5): the receipt
names who received the money and who declared it; a declaration has its own reference outside the receipt
series and gets a number only when confirmed; a rejected one never produces a receipt."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.pdf import pdf_text
from unionflow.core.numbering import sigle
from unionflow.models import Compteur, Paiement
from unionflow.paiements.recus.numerotation import compteur_recus


async def _setup(factory, **org_values):
    org = await factory.organisation(**org_values)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    treasurer.membre.prenom, treasurer.membre.nom = "Moussa", "Faye"
    member = await factory.actor(["MEMBRE"], organisation=org)
    member.membre.prenom, member.membre.nom = "Aïssatou", "Ndiaye"
    await factory.session.flush()
    return org, treasurer, member


async def _counter(db, org) -> int | None:
    name = compteur_recus(org.id, datetime.now(UTC).year)
    return (await db.execute(select(Compteur.valeur).where(Compteur.nom == name))).scalar_one_or_none()


async def _verification_path(client, headers, paiement_id) -> str:
    text = pdf_text((await client.get(f"/api/paiements/{paiement_id}/recu", headers=headers)).content)
    link = next(line for line in text.splitlines() if "/api/recus/verifier/" in line).split(" : ", 1)[1].strip()
    return link.removeprefix("http://testserver")


async def test_confirmed_declaration_receipt_names_the_treasurer_and_the_declaring_member(client, factory, db):
    org, treasurer, member = await _setup(factory, nom="Mutuelle de santé des enseignants", nom_court="MUSEN")
    dues = await cotisation(db, member.membre, org, 5000)
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                json={"montant": "5000", "methodePaiement": "ESPECES"})
    assert declared.status_code == 200, declared.text
    declaration = declared.json()["declaration"]
    reference = declaration["referenceDeclaration"]
    assert reference.startswith(f"DEC-{datetime.now(UTC).year}-"), declaration
    pending = (await client.get(f"/api/paiements/{declaration['paiementId']}", headers=member.headers)).json()
    assert pending["numeroRecu"] == reference and pending["recuPar"] is None
    assert await _counter(db, org) is None  # a declaration takes no receipt number

    confirmed = await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer",
                                  headers=treasurer.headers, json={})
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert body["numeroRecu"] == f"REC-MUSEN-{datetime.now(UTC).year}-000001", body
    assert body["referenceDeclaration"] == reference
    assert body["enregistrePar"] == member.membre.email and body["recuPar"] == treasurer.membre.email

    text = pdf_text((await client.get(f"/api/paiements/{body['id']}/recu", headers=member.headers)).content)
    assert "Reçu par : Moussa Faye" in text, text
    assert f"Déclaré par : Aïssatou Ndiaye (déclaration {reference})" in text, text
    assert member.membre.email not in text and treasurer.membre.email not in text

    path = await _verification_path(client, member.headers, body["id"])
    verified = (await client.get(path)).json()
    assert verified["numeroRecu"] == body["numeroRecu"] and verified["recuPar"] == "Moussa Faye"
    page = await client.get(path, headers={"Accept": "text/html"})
    assert "Moussa Faye" in page.text and "Aïssatou" not in page.text


async def test_cash_receipt_names_who_received_it_and_no_declarer(client, factory, db):
    org, treasurer, member = await _setup(factory, nom_court="ASC")
    dues = await cotisation(db, member.membre, org, 2500)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2500", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    assert paid.json()["recuPar"] == paid.json()["enregistrePar"] == treasurer.membre.email
    assert paid.json()["referenceDeclaration"] is None
    text = pdf_text((await client.get(f"/api/paiements/{paid.json()['id']}/recu", headers=member.headers)).content)
    assert "Reçu par : Moussa Faye" in text and "Déclaré par" not in text


async def test_rejected_declaration_uses_no_receipt_number_and_gives_no_receipt(client, factory, db):
    org, treasurer, member = await _setup(factory, nom_court="MUTREJ")
    dues = await cotisation(db, member.membre, org, 3000)
    declared = (await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                 json={"montant": "3000"})).json()["declaration"]
    rejected = await client.post(f"/api/paiements/{declared['paiementId']}/rejeter", headers=treasurer.headers,
                                 json={"motif": "Aucun versement reçu en caisse"})
    assert rejected.status_code == 200 and rejected.json()["statut"] == "ANNULE"
    assert rejected.json()["numeroRecu"] == declared["referenceDeclaration"]

    receipt = await client.get(f"/api/paiements/{declared['paiementId']}/recu", headers=member.headers)
    assert receipt.status_code == 400, receipt.text
    assert receipt.headers["content-type"].startswith("application/problem+json")
    assert "rejetée" in receipt.json()["detail"] and declared["referenceDeclaration"] in receipt.json()["detail"]
    stored = (await db.execute(select(Paiement).where(Paiement.id == uuid.UUID(declared["paiementId"])))).scalar_one()
    verify = await client.get(f"/api/recus/verifier/{stored.numero_recu}", params={"cle": stored.cle_verification})
    assert verify.status_code == 404
    assert await _counter(db, org) is None

    # The dues is still owed in full; the next payment takes the first number of the series: no gap.
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "3000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    assert paid.json()["numeroRecu"] == f"REC-MUTREJ-{datetime.now(UTC).year}-000001"


async def test_each_organisation_has_its_own_series_and_code(client, factory, db):
    year = datetime.now(UTC).year
    numbers: dict[str, list[str]] = {}
    # Two organisations whose sigle is the same get distinct codes: numbers stay unique across the union.
    for nom in ("Union des Syndicats Autonomes", "Union Syndicale Autonome", "Caisse mutuelle"):
        org, treasurer, member = await _setup(factory, nom=nom)
        for _ in range(2):
            dues = await cotisation(db, member.membre, org, 1000)
            paid = await client.post("/api/paiements", headers=treasurer.headers, json={
                "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "1000",
                "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
            assert paid.status_code == 201, paid.text
            numbers.setdefault(nom, []).append(paid.json()["numeroRecu"])
    assert numbers["Union des Syndicats Autonomes"] == [f"REC-USA-{year}-000001", f"REC-USA-{year}-000002"]
    assert numbers["Union Syndicale Autonome"] == [f"REC-USA2-{year}-000001", f"REC-USA2-{year}-000002"]
    assert numbers["Caisse mutuelle"] == [f"REC-CM-{year}-000001", f"REC-CM-{year}-000002"]


async def test_a_receipt_numbered_before_issue_19_stays_verifiable(client, factory, db):
    org, treasurer, member = await _setup(factory, nom="Association Ancienne")
    old = Paiement(numero_recu="REC-2025-000042", membre_id=member.membre.id, organisation_id=org.id,
                   montant=Decimal("1500"), devise="XOF", methode="ESPECES", statut="VALIDE",
                   date_paiement=datetime(2025, 6, 1, tzinfo=UTC), enregistre_par=treasurer.membre.email)
    db.add(old)
    await db.flush()
    verified = await client.get("/api/recus/verifier/REC-2025-000042", params={"cle": old.cle_verification})
    assert verified.status_code == 200, verified.text
    assert verified.json()["valide"] is True and verified.json()["recuPar"] == "Moussa Faye"
    text = pdf_text((await client.get(f"/api/paiements/{old.id}/recu", headers=member.headers)).content)
    assert "REC-2025-000042" in text and "Reçu par : Moussa Faye" in text


def test_sigle_of_an_organisation():
    assert sigle("MUSAD", "Mutuelle") == "MUSAD"
    assert sigle(None, "Mutuelle de santé des enseignants de Thiès") == "MSET"
    assert sigle("Jàmm-ak-Xéewal Thiès", "x") == "JAMMAKXE"
    assert sigle(None, "Ndimbal") == "NDIM"
    assert sigle("  ", "É") == "EX"
