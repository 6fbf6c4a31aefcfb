"""Treasuries: an organisation with collected money, a treasury's declaration body, a payout's body."""

from __future__ import annotations

from tests.factories.paiements import encaisser


async def org_avec_encaissement(client, factory, db, montant="20000", methode="ESPECES"):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    if montant:
        await encaisser(client, db, org, treasurer, member, montant, methode)
    return org, treasurer, president, member


def declarer(org, type_, nom, numero, **extra):
    return {"organisationId": str(org.id), "type": type_, "nom": nom, "numeroCompte": numero, **extra}


def versement(org, montant, **extra):
    return {"organisationId": str(org.id), "montant": montant, "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat de fournitures", "beneficiaireNom": "Librairie du Plateau", **extra}
