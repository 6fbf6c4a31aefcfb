"""Workflow notices through the outbox: a decision waits for the bureau (APPROBATION_EN_ATTENTE), the member
learns the decision on their aid request (DECISION_AIDE). Called by the areas' services in their transaction."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.montants import montant_texte
from unionflow.core.permissions import GRANTS, Permission
from unionflow.membres.repository import MembreRepository
from unionflow.models import DemandeAide, Membre, Paiement, Versement
from unionflow.models.annulation import TypeAnnulation, VueAnnulation
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
        corps = (f"Votre demande d'aide « {demande.titre} » est approuvée pour "
                 f"{montant_texte(demande.montant_accorde, demande.devise)}. Le versement vous sera communiqué par le "
                 "trésorier.")
    else:
        sujet = f"Demande d'aide {demande.numero_reference} rejetée"
        corps = f"Votre demande d'aide « {demande.titre} » n'a pas été retenue." + (
            f" Motif: {demande.motif}" if demande.motif else "")
    await Emetteur(session, auteur).emettre(membre, TypeNotification.DECISION_AIDE.value, sujet, corps,
                                            organisation_id=demande.organisation_id,
                                            source=("DemandeAide", demande.id))


async def avis_membre(session: AsyncSession, membre_id: uuid.UUID, organisation_id: uuid.UUID, type_notification:
                      TypeNotification, sujet: str, corps: str, source: tuple[str, uuid.UUID], auteur: str) -> None:
    """One notice to the member concerned, in his channel (what he owes or was paid changed)."""
    membre = await MembreRepository(session, None).get(membre_id)
    if membre is not None:
        await Emetteur(session, auteur).emettre(membre, type_notification.value, sujet, corps,
                                                organisation_id=organisation_id, source=source)


async def paiement_annule_ou_rembourse(session: AsyncSession, demande: VueAnnulation, auteur: str) -> None:
    assert demande.membre_id is not None and demande.paiement_id is not None
    rembourse = demande.type_annulation == TypeAnnulation.REMBOURSEMENT_PAIEMENT
    montant = montant_texte(demande.montant, demande.devise)
    if rembourse:
        sujet = f"Paiement {demande.reference} remboursé"
        corps = (f"Votre paiement de {montant} (reçu {demande.reference}) vous a été remboursé. Reçu de "
                 f"remboursement n° {demande.numero_remboursement}. Motif: {demande.motif}. Les cotisations qu'il "
                 "réglait sont de nouveau dues.")
    else:
        sujet = f"Paiement {demande.reference} annulé"
        corps = (f"Votre paiement de {montant} (reçu {demande.reference}) a été annulé et le reçu ne vaut plus "
                 f"quittance. Motif: {demande.motif}. Les cotisations qu'il réglait sont de nouveau dues.")
    await avis_membre(session, demande.membre_id, demande.organisation_id,
                      TypeNotification.PAIEMENT_REMBOURSE if rembourse else TypeNotification.PAIEMENT_ANNULE,
                      sujet, corps, ("Paiement", demande.paiement_id), auteur)


async def aide_versee(session: AsyncSession, demande: DemandeAide, versement: Versement, auteur: str) -> None:
    await avis_membre(session, demande.membre_id, demande.organisation_id, TypeNotification.AIDE_VERSEE,
                      f"Aide {demande.numero_reference} versée",
                      f"L'aide « {demande.titre} » vous a été versée: "
                      f"{montant_texte(versement.montant, versement.devise)} "
                      f"({'Wave' if versement.mode == 'WAVE' else 'versement manuel'}, versement {versement.numero}).",
                      ("Versement", versement.id), auteur)


async def declaration_rejetee(session: AsyncSession, paiement: Paiement, motif: str, auteur: str) -> None:
    await avis_membre(session, paiement.membre_id, paiement.organisation_id, TypeNotification.DECLARATION_REJETEE,
                      "Paiement déclaré non reçu",
                      f"La trésorerie n'a pas constaté le paiement de "
                      f"{montant_texte(paiement.montant, paiement.devise)} que vous "
                      f"avez déclaré: il est rejeté et reste dû. Motif: {motif}", ("Paiement", paiement.id), auteur)


async def double_paiement_en_avoir(session: AsyncSession, paiement: Paiement, montant: Decimal, canal: str,
                                   raison: str, auteur: str) -> None:
    """Money that arrived for dues already settled became the member's credit: the member and the
    organisation's treasury (who may record payments, ``paiement.enregistrer``) are told how much and why."""
    somme = montant_texte(montant, paiement.devise)
    sujet = f"Reçu {paiement.numero_recu}: {somme} gardés en avoir"
    source = ("Paiement", paiement.id)
    await avis_membre(session, paiement.membre_id, paiement.organisation_id, TypeNotification.AVOIR_DOUBLE_PAIEMENT,
                      sujet, f"Votre paiement ({canal}) du reçu {paiement.numero_recu} est arrivé pour ce qui était "
                             f"déjà réglé: {somme} sont gardés comme avoir sur votre compte ({raison}). Il paiera vos "
                             f"prochaines cotisations ou vous sera remboursé sur demande.", source, auteur)
    tresorerie = [m for m in await membres_avec_roles(session, paiement.organisation_id,
                                                      GRANTS[Permission.PAIEMENT_ENREGISTRER])
                  if m.id != paiement.membre_id]
    if tresorerie:
        await Emetteur(session, auteur).emettre_lot(
            tresorerie, TypeNotification.AVOIR_DOUBLE_PAIEMENT.value,
            lambda _m, _c: (sujet, f"Le paiement ({canal}) du reçu {paiement.numero_recu} est arrivé pour ce "
                                   f"qui était déjà réglé: {somme} sont devenus l'avoir du membre "
                                   f"({raison}). Imputez-le ou remboursez-le."),
            organisation_id=paiement.organisation_id, source=source)


async def information_donnees(session: AsyncSession, membre_id: uuid.UUID, organisation_id: uuid.UUID, sujet: str,
                              corps: str, source: tuple[str, uuid.UUID], auteur: str) -> None:
    """The information at collection (Loi 2008-12 art. 58) in the member's inbox."""
    membre = await MembreRepository(session, None).get(membre_id)
    if membre is not None:
        await Emetteur(session, auteur).emettre_boite(membre, TypeNotification.INFORMATION.value, sujet, corps,
                                                      organisation_id=organisation_id, source=source)

