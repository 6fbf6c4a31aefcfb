"""Concurrent gifts to one organisation: each line gets its own number, without gap, and chains on the one
before it (the register counter's row lock orders the writers)."""

from __future__ import annotations

import asyncio

import pytest


@pytest.mark.postgresql_only
async def test_concurrent_gifts_chain_without_gap(client, committed_factory):
    org = await committed_factory.organisation()
    tresorier = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    body = {"nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "1500",
            "methode": "ESPECES", "affectation": "Fête de fin d'année"}
    responses = await asyncio.gather(*[client.post("/api/paiements/recettes", headers=tresorier.headers, json=body)
                                       for _ in range(6)])
    assert [r.status_code for r in responses] == [201] * 6, [r.text for r in responses]
    verifie = await client.get("/api/comptabilite/registre-dons/verifier", headers=tresorier.headers,
                               params={"organisationId": str(org.id)})
    assert verifie.json() == {"organisationId": str(org.id), "intact": True, "lignesVerifiees": 6,
                              "premiereLigneRompue": None, "raison": None}
    fonds = (await client.get("/api/comptabilite/fonds-dedies", headers=tresorier.headers,
                              params={"organisationId": str(org.id)})).json()
    assert len(fonds) == 1 and fonds[0]["solde"] == "9000.00"
