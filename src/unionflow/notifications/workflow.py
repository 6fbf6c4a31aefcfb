"""Workflow notices through the outbox: a decision waits for the bureau (APPROBATION_EN_ATTENTE), the member
learns the decision on their aid request (DECISION_AIDE). Called by the areas' services in their transaction."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.permissions import GRANTS, Permission
from unionflow.membres.repository import MembreRepository
from unionflow.models import DemandeAide, Membre
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.schemas import TypeNotification


async def membres_avec_roles(session: AsyncSession, organisation_id: uuid.UUID,
                             roles: Iterable[str]) -> list[Membre]:
    """Active members of the organisation holding one of ``roles`` in their membership there."""
    return await MembreRepository(session, None).actifs_avec_roles(organisation_id, frozenset(roles))


async def approbation_en_attente(session: AsyncSession, organisation_id: uuid.UUID, permission: Permission,
                                 sujet: str, corps: str, source: tuple[str, uuid.UUID], auteur: str,
                                 sauf: uuid.UUID | None = None) -> int:
    """Tell the organisation's members who may decide (the roles ``GRANTS`` gives ``permission``) that a
    request waits for them; ``sauf``: the requester, who never decides on their own request."""
    decideurs = [m for m in await membres_avec_roles(session, organisation_id, GRANTS[permission]) if m.id != sauf]
    if not decideurs:
        return 0
    bilan = await Emetteur(session, auteur).emettre_lot(
        decideurs, TypeNotification.APPROBATION_EN_ATTENTE.value, lambda _m, _c: (sujet, corps),
        organisation_id=organisation_id, source=source)
    return len(bilan.notifications)


async def decision_aide(session: AsyncSession, demande: DemandeAide, auteur: str) -> None:
    membre = await MembreRepository(session, None).get(demande.membre_id)
    if membre is None:
        return
    if demande.statut == StatutDemandeAide.APPROUVEE:
        sujet = f"Demande d'aide {demande.numero_reference} approuvée"
        corps = (f"Votre demande d'aide « {demande.titre} » est approuvée pour {demande.montant_accorde} "
                 f"{demande.devise}. Le versement vous sera communiqué par le trésorier.")
    else:
        sujet = f"Demande d'aide {demande.numero_reference} rejetée"
        corps = f"Votre demande d'aide « {demande.titre} » n'a pas été retenue." + (
            f" Motif: {demande.motif}" if demande.motif else "")
    await Emetteur(session, auteur).emettre(membre, TypeNotification.DECISION_AIDE.value, sujet, corps,
                                            organisation_id=demande.organisation_id,
                                            source=("DemandeAide", demande.id))
