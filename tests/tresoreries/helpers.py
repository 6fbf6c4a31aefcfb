"""A federation's mutual with collected money, and readers of its books (class-5 balances, the entries of a piece)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from tests.paiements.helpers import cotisation
from unionflow.models import CompteComptable, EcritureComptable, LigneEcriture


async def org_avec_encaissement(client, factory, db, montant="20000", methode="ESPECES"):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    if montant:
        await encaisser(client, db, org, treasurer, member, montant, methode)
    return org, treasurer, president, member


async def encaisser(client, db, org, treasurer, member, montant, methode="ESPECES"):
    dues = await cotisation(db, member.membre, org, montant)
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
    if methode not in ("ESPECES", "AUTRE"):
        body["referenceExterne"] = f"REF-{dues.id.hex[:8]}"
    paid = await client.post("/api/paiements", headers=treasurer.headers, json=body)
    assert paid.status_code == 201, paid.text
    return paid.json()


async def solde(db, org, numero) -> Decimal:
    stmt = (select(func.coalesce(func.sum(LigneEcriture.debit), 0) - func.coalesce(func.sum(LigneEcriture.credit), 0))
            .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
            .where(CompteComptable.organisation_id == org.id, CompteComptable.numero_compte == numero))
    return Decimal(str((await db.execute(stmt.execution_options(populate_existing=True))).scalar_one()))


async def lignes_de_piece(db, org, piece) -> list[tuple[str, Decimal, Decimal]]:
    rows = await db.execute(
        select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
        .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == org.id, EcritureComptable.piece_reference == piece)
        .order_by(EcritureComptable.created_at, LigneEcriture.ordre))
    return [(n, Decimal(str(d)), Decimal(str(c))) for n, d, c in rows.all()]


def declarer(org, type_, nom, numero, **extra):
    return {"organisationId": str(org.id), "type": type_, "nom": nom, "numeroCompte": numero, **extra}


def versement(org, montant, **extra):
    return {"organisationId": str(org.id), "montant": montant, "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat de fournitures", "beneficiaireNom": "Librairie du Plateau", **extra}
