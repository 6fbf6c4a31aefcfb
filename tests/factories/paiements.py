"""Payments: through the API (paid at once, undone by two people) or as validated rows."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from tests.factories.cotisations import cotisation
from unionflow.models import Membre, Organisation, Paiement


async def paiement_valide(db: AsyncSession, membre: Membre, org: Organisation, montant: str,
                          methode: str = "WAVE", date_paiement: datetime | None = None) -> Paiement:
    """A validated payment row, written directly so that the detection rules are exercised on their own
    (the settlement workflow screens its payments itself: see test_workflow_screens_payments)."""
    paiement = Paiement(numero_recu=f"REC-T-{uuid.uuid4().hex[:10]}", membre_id=membre.id, organisation_id=org.id,
                        montant=Decimal(montant), devise="XOF", methode=methode, statut="VALIDE",
                        date_paiement=date_paiement or datetime.now(UTC))
    db.add(paiement)
    await db.flush()
    return paiement


async def defaire(client: Any, path: str, demandeur: Any, approbateur: Any, motif: str = "Erreur de saisie") -> Any:
    """POST the spec's undo route as ``demandeur`` (202, pending), then approve it as ``approbateur``; returns the
    approval's response (the request, APPROUVEE, carried out)."""
    demande = await client.post(path, headers=demandeur.headers, json={"motif": motif})
    assert demande.status_code == 202, demande.text
    assert demande.json()["statut"] == "EN_ATTENTE"
    return await client.post(f"/api/annulations/{demande.json()['id']}/approuver", headers=approbateur.headers,
                             json={})


async def encaisser(client, db, org, treasurer, member, montant, methode):
    """A dues row of ``member`` paid at once by ``treasurer`` through POST /api/paiements (201): the payment's JSON.
    ``methode`` is always said (no default: callers used to get cash from one builder and a transfer from
    another); a method other than cash or AUTRE carries a reference."""
    dues = await cotisation(db, member.membre, org, montant)
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
    if methode not in ("ESPECES", "AUTRE"):
        body["referenceExterne"] = f"REF-{dues.id.hex[:8]}"
    paid = await client.post("/api/paiements", headers=treasurer.headers, json=body)
    assert paid.status_code == 201, paid.text
    return paid.json()
