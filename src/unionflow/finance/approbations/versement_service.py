"""What the payouts area asks of approvals: open a request for a large payout, refuse to send an unapproved
one, withdraw the request when the payout is cancelled. Called from ``versements.service``."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState
from unionflow.finance.approbations.schemas import TypeObjetApprobation
from unionflow.finance.approbations.service import POLITIQUE, SEUIL_VERSEMENT, annuler, courantes, ouvrir, seuil
from unionflow.models import Versement
from unionflow.models.approbation import StatutDemande


async def demander_pour_versement(session: AsyncSession, auth: AuthContext, versement: Versement) -> None:
    """A payout at or above the configured threshold opens its approval request, asked by its creator."""
    if versement.montant < await seuil(session, SEUIL_VERSEMENT):
        return
    await ouvrir(session, auth, organisation_id=versement.organisation_id, type_objet=TypeObjetApprobation.VERSEMENT,
                 objet_id=versement.id, montant=versement.montant, devise=versement.devise,
                 motif=f"Versement {versement.numero} à {versement.beneficiaire_nom}: {versement.motif}"
                       # The approver sees where the money is booked: the chosen counterpart account.
                       + (f" (imputation au compte {versement.compte_charge})" if versement.compte_charge else ""))


async def exiger_approbation(session: AsyncSession, auth: AuthContext, versement: Versement) -> None:
    """Before a payout is sent: its latest request must be approved; none at all is refused above the
    threshold (a threshold lowered after creation still applies)."""
    en_cours = await courantes(session, auth, TypeObjetApprobation.VERSEMENT, versement.id)
    if en_cours:
        if en_cours[0].statut != StatutDemande.APPROUVEE:
            raise InvalidState(f"Versement soumis à approbation: demande {en_cours[0].numero} "
                               f"{POLITIQUE.statut(en_cours[0])}")
        return
    if versement.montant >= await seuil(session, SEUIL_VERSEMENT):
        raise InvalidState("Versement soumis à approbation: aucune demande d'approbation approuvée")


async def retirer_pour_versement(session: AsyncSession, auth: AuthContext, versement: Versement) -> None:
    for approbation in await courantes(session, auth, TypeObjetApprobation.VERSEMENT, versement.id, for_update=True):
        if approbation.statut == StatutDemande.EN_ATTENTE:
            await annuler(session, auth, approbation, f"Versement {versement.numero} annulé")
