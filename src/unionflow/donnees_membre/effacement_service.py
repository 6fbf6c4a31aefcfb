"""Erasure requests: the EFFACEMENT kind of four-eyes requests (approbations/).

The member asks for himself (the policy's ``par_le_sujet``: a data subject's right, no permission), or the
register's keepers for him (``donnees.effacement.demander``); a second person decides — the organisation's
PRESIDENT, ADMIN_ORGANISATION or DELEGUE_PROTECTION_DONNEES (``donnees.effacement.decider``), never the requester
(compared by person key, issuer and subject). Approval runs ``effacement.effacer_identite`` in the decider's
transaction, audited EFFACER_DONNEES; the answer the member is told is kept with the request (``details.reponse``)
and returned by every route.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.donnees_membre.effacement import effacer_identite, reponse
from unionflow.donnees_membre.schemas import EffacementResponse
from unionflow.donnees_membre.service import MODULE
from unionflow.membres.repository import MembreRepository
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.membre import Membre, StatutAppartenance

GENRE = GenreDemande.EFFACEMENT.value
ENTITE = "DemandeEffacement"
EN_ATTENTE = ("Votre demande d'effacement attend la décision d'une seconde personne (président, administrateur ou "
              "délégué à la protection des données de l'organisation).")
REJET = "Votre demande d'effacement a été refusée: {commentaire}"


async def _effacer(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation, issuer: Any) -> None:
    """What an approved request carries out."""
    membre = await MembreRepository(session, None).get(demande.objet_id, for_update=True) \
        if demande.objet_id else None
    if membre is None or membre.date_effacement is not None:
        raise Conflict("Ce membre n'existe plus ou a déjà été effacé")
    texte = reponse(membre)
    comptes = await effacer_identite(session, membre, str(issuer), "Identité effacée à sa demande (Loi 2008-12)")
    demande.details = {**(demande.details or {}), "reponse": texte}
    await audit.record(session, auth, action="EFFACER_DONNEES", module=MODULE, entite_type="Membre",
                       entite_id=membre.id, organisation_id=demande.organisation_id, severite="CRITICAL",
                       after={"demandeId": str(demande.id), "lignes": comptes},
                       description=f"Identité pseudonymisée ({membre.prenom} {membre.nom}), demandée par "
                                   f"{demande.demande_par}, approuvée par {auth.actor_name}")


async def sujet(session: AsyncSession, auth: AuthContext, membre_id: uuid.UUID | None, permission: Permission,
                objet: str, deja_efface: str) -> tuple[Membre, uuid.UUID]:
    """The member a data-rights request is about (the caller himself when ``membre_id`` is None; never an erased
    one: ``deja_efface`` says why) and the organisation it is filed in (``organisation_du_sujet``)."""
    pour_lui = membre_id is None or membre_id == auth.membre_id
    cible = auth.membre_id if membre_id is None else membre_id
    membre = await MembreRepository(session, auth).get(cible) if cible else None
    if membre is None:
        raise NotFound("Aucune fiche de membre n'est liée à ce compte" if membre_id is None else "Membre introuvable")
    if membre.date_effacement is not None:
        raise Conflict(deja_efface)
    return membre, await organisation_du_sujet(session, auth, membre, pour_lui, permission, objet)


async def organisation_du_sujet(session: AsyncSession, auth: AuthContext, membre: Membre, pour_lui: bool,
                                permission: Permission, objet: str) -> uuid.UUID:
    """Where a data subject's request is filed: the member's first current organisation (for staff: one of theirs
    where they hold ``permission``). ``objet``: what is asked, in the refusals (« son effacement »)."""
    appartenances = [a for a in await MembreRepository(session, auth).memberships(membre.id)
                     if a.statut != StatutAppartenance.TERMINE]
    for appartenance in appartenances:
        if pour_lui or auth.can(permission, appartenance.organisation_id):
            return appartenance.organisation_id
    if not appartenances:
        raise RegleMetier(f"Ce membre n'appartient à aucune organisation: {objet} ne peut être décidé(e)")
    raise Forbidden(f"Seuls le membre lui-même et les gestionnaires du registre de son organisation demandent {objet}")


# Decided by the organisation's head, its administrator or its data-protection officer (docs/decisions.md).
POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'effacement", demander=Permission.DONNEES_EFFACEMENT_DEMANDER,
    decider=Permission.DONNEES_EFFACEMENT_DECIDER,
    roles_decideurs=(Role.PRESIDENT.value, Role.ADMIN_ORGANISATION.value, Role.DELEGUE_PROTECTION_DONNEES.value),
    refus_decideur=("Seuls le PRESIDENT, l'ADMIN_ORGANISATION et le DELEGUE_PROTECTION_DONNEES de l'organisation "
                    "décident d'un effacement"),
    chemin="/api/donnees/effacements/{id}", executer=_effacer, par_le_sujet=True,
    refus_demande="Vous ne pouvez pas demander l'effacement de ce membre dans cette organisation"))


def _reponse(demande: DemandeApprobation) -> EffacementResponse:
    decision = demande.decisions[-1] if demande.decisions else None
    if demande.statut == StatutDemande.APPROUVEE:
        texte = str((demande.details or {}).get("reponse", ""))
    elif demande.statut == StatutDemande.REJETEE:
        texte = REJET.format(commentaire=decision.commentaire if decision else "")
    elif demande.statut == StatutDemande.RETIREE:
        texte = "Demande retirée."
    else:
        texte = EN_ATTENTE
    return EffacementResponse(
        id=demande.id, membre_id=demande.objet_id, organisation_id=demande.organisation_id,
        statut=StatutDemande(demande.statut),
        motif=demande.motif, demande_par=demande.demande_par, date_demande=demande.date_demande,
        decide_par=decision.decideur if decision else None, commentaire=decision.commentaire if decision else None,
        date_decision=demande.date_decision, reponse=texte)


class EffacementService:
    def __init__(self, session: AsyncSession, auth: AuthContext, issuer: str) -> None:
        self.session = session
        self.auth = auth
        self.issuer = issuer

    async def demander(self, membre_id: uuid.UUID | None, motif: str) -> EffacementResponse:
        membre, organisation = await sujet(self.session, self.auth, membre_id, Permission.DONNEES_EFFACEMENT_DEMANDER,
                                           "son effacement", "Ce membre a déjà été effacé")
        if [d for d in await DemandeApprobationRepository(self.session, self.auth).courantes(GENRE, membre.id)
                if d.statut == StatutDemande.EN_ATTENTE]:
            raise Conflict("Une demande d'effacement de ce membre est déjà en attente")
        demande = await quatre_yeux.ouvrir(self.session, self.auth, POLITIQUE, organisation_id=organisation,
                                           motif=motif, objet_id=membre.id)
        await audit.record(self.session, self.auth, action="DEMANDER_EFFACEMENT", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=organisation, severite="WARNING",
                           after={"membreId": str(membre.id), "motif": motif})
        return _reponse(demande)

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        demande = await DemandeApprobationRepository(self.session, self.auth).du_genre(
            GENRE, demande_id, scoped=False, for_update=for_update)
        # Seen by its requester, the deciders and the register's keepers of its organisation (others: 404).
        if demande is None or not (demande.demande_par_sub == self.auth.personne
                                   or self.auth.can(Permission.DONNEES_EFFACEMENT_DECIDER, demande.organisation_id)
                                   or self.auth.can(Permission.MEMBRE_GERER, demande.organisation_id)):
            raise NotFound("Demande d'effacement introuvable")
        return demande

    async def obtenir(self, demande_id: uuid.UUID) -> EffacementResponse:
        return _reponse(await self._get(demande_id))

    async def decider(self, demande_id: uuid.UUID, decision: TypeDecision,
                      commentaire: str | None) -> EffacementResponse:
        demande = await self._get(demande_id, for_update=True)
        await quatre_yeux.decider(self.session, self.auth, demande, decision, commentaire, self.issuer)
        action = "APPROUVER_EFFACEMENT" if decision is TypeDecision.APPROUVEE else "REJETER_EFFACEMENT"
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           after={"statut": demande.statut}, description=commentaire)
        return _reponse(demande)
