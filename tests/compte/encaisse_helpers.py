"""Builders and readers of the « encaissé » tests (issue 28 item 7): payments at a date, credit applied now, and
the figures as every surface shows them — the organisation's dashboard, the consolidation over any period, the
trial balance's credit column of the dues income accounts."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from tests.factories import Actor
from tests.factories.cotisations import cotisation
from unionflow.models import Organisation

# The default dues income accounts (comptabilite/produits/comptes.py): periodic, exceptional, solidarity dues.
COMPTES_COTISATIONS = ("7061", "7063", "7064")


def instant(jour: date, heure: int = 10) -> datetime:
    """``heure`` (10:00) UTC on ``jour``, or now when that is still to come today: a payment is never dated in the
    future (the service refuses it), whatever the hour the suite runs."""
    return min(datetime.combine(jour, time(heure), tzinfo=UTC), datetime.now(UTC))


async def payer(client: Any, db: Any, org: Organisation, tresorier: Actor, membre: Actor, montant: int, du: int,
                jour: date) -> dict[str, Any]:
    """``montant`` received on ``jour`` for a new dues of ``du`` (the rest, if any, becomes credit)."""
    dues = await cotisation(db, membre.membre, org, du)
    body = {"membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": str(montant),
            "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}], "avance": montant > du,
            "datePaiement": instant(jour).isoformat()}
    paid = await client.post("/api/paiements", headers=tresorier.headers, json=body)
    assert paid.status_code == 201, paid.text
    result: dict[str, Any] = paid.json()
    return result


async def imputer(client: Any, org: Organisation, tresorier: Actor, membre: Actor) -> Decimal:
    """Apply the member's credit now to their open dues (oldest first); what it paid."""
    headers = {**tresorier.headers, "Idempotency-Key": f"imputer-{uuid.uuid4()}"}
    done = await client.post("/api/avoirs/imputer", headers=headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id)})
    assert done.status_code == 200, done.text
    return Decimal(done.json()["montantImpute"])


async def tableau(client: Any, org: Organisation, tresorier: Actor) -> dict[str, Decimal]:
    board = await client.get(f"/api/dashboard/organisation?organisationId={org.id}", headers=tresorier.headers)
    assert board.status_code == 200, board.text
    body = board.json()
    return {k: Decimal(body[k]) for k in ("encaisseCotisationsJour", "encaisseCotisationsMois",
                                          "encaisseCotisationsAnnee", "encaisseAdhesionsAnnee",
                                          "cotisationsExtourneesMois")}


async def consolidation(client: Any, org: Organisation, tresorier: Actor, debut: date, fin: date) -> Decimal:
    """The organisation's « cotisations encaissées » over [debut, fin] on the federation page (its own perimeter)."""
    found = await client.get(f"/api/federations/{org.id}/consolidation?dateDebut={debut}&dateFin={fin}",
                             headers=tresorier.headers)
    assert found.status_code == 200, found.text
    return Decimal(found.json()["organisations"][0]["cotisationsEncaissees"])


async def credits_balance(client: Any, org: Organisation, tresorier: Actor, debut: date, fin: date,
                          colonne: str = "creditPeriode") -> Decimal:
    """The trial balance's credit (or ``debitPeriode``) column over [debut, fin] of the dues income accounts."""
    found = await client.get(f"/api/comptabilite/etats/balance?organisationId={org.id}&dateDebut={debut}"
                             f"&dateFin={fin}", headers=tresorier.headers)
    assert found.status_code == 200, found.text
    return sum((Decimal(ligne[colonne]) for ligne in found.json()["lignes"]
                if ligne["numeroCompte"] in COMPTES_COTISATIONS), Decimal(0))


async def annuler(client: Any, paiement_id: str, tresorier: Actor, president: Actor) -> bool:
    """Undo a payment (request, then a second person's approval); False when it is refused (its credit served)."""
    demande = await client.post(f"/api/paiements/{paiement_id}/annuler", headers=tresorier.headers,
                                json={"motif": "Erreur de saisie"})
    if demande.status_code != 202:
        assert demande.status_code in (400, 409), demande.text
        return False
    done = await client.post(f"/api/annulations/{demande.json()['id']}/approuver", headers=president.headers,
                             json={})
    if done.status_code != 200:
        assert done.status_code in (400, 409), done.text
        return False
    return True


async def avoir(client: Any, org: Organisation, tresorier: Actor, membre: Actor) -> Decimal:
    found = await client.get(f"/api/avoirs?membreId={membre.membre.id}&organisationId={org.id}",
                             headers=tresorier.headers)
    assert found.status_code == 200, found.text
    return Decimal(found.json()["solde"])
