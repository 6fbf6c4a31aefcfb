"""The one emit helper the services call: an outbox row per interested subscription, in the caller's
transaction, so an event is delivered if and only if the change that caused it was committed."""

from __future__ import annotations

import uuid
from decimal import Decimal
from enum import StrEnum
from typing import Any

from pydantic_core import to_jsonable_python
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import reference
from unionflow.models import LivraisonWebhook
from unionflow.models.base import utcnow
from unionflow.webhooks.repository import LivraisonWebhookSystemRepository


class EvenementWebhook(StrEnum):
    ADHESION_APPROUVEE = "adhesion.approuvee"
    ADHESION_REJETEE = "adhesion.rejetee"
    COTISATION_PAYEE = "cotisation.payee"
    PAIEMENT_VALIDE = "paiement.valide"
    PAIEMENT_REMBOURSE = "paiement.rembourse"
    VERSEMENT_CONFIRME = "versement.confirme"
    INSCRIPTION_CONFIRMEE = "inscription_evenement.confirmee"
    INSCRIPTION_ANNULEE = "inscription_evenement.annulee"
    DEMANDE_AIDE_DECIDEE = "demande_aide.decidee"
    ALERTE_LCBFT_LEVEE = "alerte_lcbft.levee"


LIBELLES: dict[EvenementWebhook, str] = {
    EvenementWebhook.ADHESION_APPROUVEE: "Adhésion approuvée",
    EvenementWebhook.ADHESION_REJETEE: "Adhésion rejetée",
    EvenementWebhook.COTISATION_PAYEE: "Cotisation entièrement payée",
    EvenementWebhook.PAIEMENT_VALIDE: "Paiement validé",
    EvenementWebhook.PAIEMENT_REMBOURSE: "Paiement remboursé",
    EvenementWebhook.VERSEMENT_CONFIRME: "Versement confirmé (réussi)",
    EvenementWebhook.INSCRIPTION_CONFIRMEE: "Inscription à un événement confirmée",
    EvenementWebhook.INSCRIPTION_ANNULEE: "Inscription à un événement annulée",
    EvenementWebhook.DEMANDE_AIDE_DECIDEE: "Demande d'aide décidée (approuvée ou rejetée)",
    EvenementWebhook.ALERTE_LCBFT_LEVEE: "Alerte LCB-FT levée",
}


Abonnes = tuple[tuple[uuid.UUID, frozenset[str]], ...]


async def abonnements(session: AsyncSession, organisation_id: uuid.UUID) -> Abonnes:
    """The organisation's active subscriptions and their events, through the worker's reference-data cache
    (core/reference.py): read by every payment, changed rarely."""

    async def load() -> Abonnes:
        rows = await LivraisonWebhookSystemRepository(session).active_subscriptions(organisation_id)
        return tuple((abonnement_id, frozenset(evenements or ())) for abonnement_id, evenements in rows)

    return await reference.lire(session, ("webhooks", organisation_id), load)


def livraisons(abonnes: Abonnes, organisation_id: uuid.UUID, evenement: EvenementWebhook,
               donnees: dict[str, Any]) -> list[LivraisonWebhook]:
    """One outbox row per subscription interested in ``evenement`` (not added to any session)."""
    # JSON containment is not portable between SQLite and PostgreSQL; an organisation has a handful of rows.
    interesses = [abonnement_id for abonnement_id, evenements in abonnes if evenement.value in evenements]
    if not interesses:
        return []
    evenement_id = uuid.uuid4()
    charge = {"id": str(evenement_id), "type": evenement.value, "organisationId": str(organisation_id),
              "creeLe": utcnow().isoformat(), "donnees": to_jsonable_python(
                  # Amounts as strings with two decimals (never floats): "9000.00" whatever the source.
                  {k: f"{v:.2f}" if isinstance(v, Decimal) else v for k, v in donnees.items()})}
    return [LivraisonWebhook(id=uuid.uuid4(), abonnement_id=abonnement_id, organisation_id=organisation_id,
                             evenement=evenement.value, evenement_id=evenement_id, charge=charge,
                             statut="EN_ATTENTE", tentatives=0, historique=[]) for abonnement_id in interesses]


async def emettre(session: AsyncSession, organisation_id: uuid.UUID, evenement: EvenementWebhook,
                  donnees: dict[str, Any]) -> int:
    """Queue ``evenement`` for every active subscription of the organisation that asked for it; returns how
    many deliveries were queued. Never commits."""
    rows = livraisons(await abonnements(session, organisation_id), organisation_id, evenement, donnees)
    if rows:
        session.add_all(rows)
        await session.flush()
    return len(rows)
