"""A federation with two mutuals, their bureaus and members (issue 20 item 6)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from tests.factories import Actor
from tests.paiements.helpers import cotisation
from unionflow.models import CompteComptable, EcritureComptable, LigneEcriture, Organisation


@dataclass
class Reseau:
    federation: Organisation
    mutuelle: Organisation
    soeur: Organisation
    tresorier_federation: Actor
    president_federation: Actor
    tresorier: Actor  # the first mutual's
    second: Actor  # the first mutual's administrator: confirms its payouts
    president: Actor  # the first mutual's president: approves cancellations
    tresorier_soeur: Actor
    membres: list[Actor]


async def reseau(factory: Any) -> Reseau:
    federation = await factory.organisation(type_organisation="FEDERATION")
    mutuelle = await factory.organisation(type_organisation="MUTUELLE", parent_id=federation.id)
    soeur = await factory.organisation(type_organisation="MUTUELLE", parent_id=federation.id)

    async def role(org: Organisation, name: str) -> Actor:
        actor: Actor = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", name])
        return actor

    return Reseau(
        federation=federation, mutuelle=mutuelle, soeur=soeur,
        tresorier_federation=await role(federation, "TRESORIER"),
        president_federation=await role(federation, "PRESIDENT"),
        tresorier=await role(mutuelle, "TRESORIER"), second=await role(mutuelle, "ADMIN_ORGANISATION"),
        president=await role(mutuelle, "PRESIDENT"), tresorier_soeur=await role(soeur, "TRESORIER"),
        membres=[await factory.actor(["USER"], organisation=o, org_roles=["MEMBRE"])
                 for o in (mutuelle, mutuelle, soeur)])


async def payer(client: Any, db: Any, org: Organisation, tresorier: Actor, membre: Actor, montant: str,
                methode: str = "VIREMENT") -> dict[str, Any]:
    dues = await cotisation(db, membre.membre, org, montant)
    body = {"membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
    if methode != "ESPECES":
        body["referenceExterne"] = "VIR-1"
    paid = await client.post("/api/paiements", headers=tresorier.headers, json=body)
    assert paid.status_code == 201, paid.text
    result: dict[str, Any] = paid.json()
    return result


async def lignes_de_piece(db: Any, org: Organisation, piece: str) -> dict[str, tuple[Decimal, Decimal]]:
    """Account number → (debit, credit) of the organisation's entries with this piece reference."""
    rows = (await db.execute(
        select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
        .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == org.id, EcritureComptable.piece_reference == piece))).all()
    return {n: (Decimal(d), Decimal(c)) for n, d, c in rows}
