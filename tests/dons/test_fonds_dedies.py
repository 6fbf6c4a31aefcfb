"""Earmarked funds: a donation given for a purpose feeds its fund; uses are assigned to it, never beyond what it
holds; the year's statement carries the unused balance forward."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tests.factories.paiements import defaire

RECETTES = "/api/paiements/recettes"
FONDS = "/api/comptabilite/fonds-dedies"


async def test_an_earmarked_gift_feeds_its_fund_uses_are_assigned_and_the_balance_carried_forward(client, factory):
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


async def test_a_cancelled_gift_gets_a_counter_line_and_leaves_its_fund(client, factory):
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
