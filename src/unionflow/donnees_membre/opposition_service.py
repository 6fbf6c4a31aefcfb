"""Opposition requests: the OPPOSITION kind of four-eyes requests (approbations/), Loi 2008-12.

A member objects, on legitimate grounds (and without having to justify it for prospecting), to one processing of the
register of processings — only those declared ``opposable`` (core/traitements.py): the dues reminders by SMS and
e-mail, the information, invitations and offers; never what the law, the contract or the membership requires (the
books, the register of members, receipts, the audit trail), refused 409 with the processing's legal basis. The member
asks for himself (the policy's ``par_le_sujet``), or the register's keepers for him
(``donnees.opposition.demander``); a second person decides — the organisation's PRESIDENT, ADMIN_ORGANISATION or
DELEGUE_PROTECTION_DONNEES (``donnees.opposition.decider``), never the requester nor the member concerned (compared
by person key). Approval records the opposition (``opposition_traitement``, in force) in the decider's transaction;
the places that process the data honour it (notifications/emission.py ``OPPOSITIONS``). The member (or a keeper for
him) withdraws it: a pending request is withdrawn, an opposition in force is dated withdrawn, never erased. Every
step is audited (DEMANDER_OPPOSITION, APPROUVER_OPPOSITION, REJETER_OPPOSITION, ENREGISTRER_OPPOSITION,
RETIRER_OPPOSITION).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext, person_key
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.core.traitements import DeclarationTraitement
from unionflow.donnees_membre.effacement_service import sujet
from unionflow.donnees_membre.schemas import OppositionResponse
from unionflow.donnees_membre.service import MODULE
from unionflow.donnees_personnelles.ports import TRAITEMENTS
from unionflow.donnees_personnelles.repository import OppositionTraitementRepository
from unionflow.membres.repository import MembreRepository
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.donnees_personnelles import OppositionTraitement

GENRE = GenreDemande.OPPOSITION.value
ENTITE = "DemandeOpposition"
# The member's requests shown to him (his page, GET /api/moi/donnees/oppositions).
MAX_DEMANDES = 100
EN_ATTENTE = ("Votre opposition au traitement « {nom} » attend la décision d'une seconde personne (président, "
              "administrateur ou délégué à la protection des données de l'organisation).")
EN_VIGUEUR = "Votre opposition au traitement « {nom} » est en vigueur depuis le {date:%d/%m/%Y}: {effet}."
LEVEE = "Vous avez retiré votre opposition au traitement « {nom} » le {date:%d/%m/%Y}: il s'applique de nouveau."
REJET = "Votre opposition au traitement « {nom} » a été refusée: {commentaire}"
RETIREE = "Demande retirée."


def declaration(code: str) -> DeclarationTraitement:
    """The processing of the register a member may oppose (400 unknown, 409 required by law or the membership)."""
    found = next((d for d in TRAITEMENTS() if d.code == code), None)
    if found is None:
        raise RegleMetier(f"traitement: « {code} » n'est pas au registre des traitements "
                          "(GET /api/conformite/traitements)")
    if not found.opposable:
        raise Conflict(f"On ne peut pas s'opposer au traitement « {found.nom} »: il est requis par la loi, le contrat "
                       f"ou l'adhésion elle-même ({found.base_legale}). Le droit d'opposition (loi n° 2008-12) "
                       "vaut pour les traitements marqués opposables au registre.")
    return found


def opposables() -> list[DeclarationTraitement]:
    """The processings of the register a member may object to (what his page offers)."""
    return [d for d in TRAITEMENTS() if d.opposable]


def _nom(code: str) -> str:
    return next((d.nom for d in TRAITEMENTS() if d.code == code), code)


def _traitement(demande: DemandeApprobation) -> str:
    return str((demande.details or {}).get("traitement", ""))


async def _sujet(session: AsyncSession, demande: DemandeApprobation) -> set[str]:
    """The member the request is about, as a person key: he asks, he never decides (``Politique.auteurs``)."""
    membre = await MembreRepository(session, None).get(demande.objet_id) if demande.objet_id else None
    if membre is None or not membre.user_sub:
        return set()
    return {person_key(membre.user_iss, membre.user_sub)}


async def _opposer(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation, _contexte: Any) -> None:
    """What an approved request carries out: the opposition in force from now."""
    code = _traitement(demande)
    deja = "Une opposition de ce membre à ce traitement est déjà en vigueur"
    repo = OppositionTraitementRepository(session)
    if demande.objet_id is None or await repo.en_vigueur(demande.objet_id, code, for_update=True) is not None:
        raise Conflict(deja)
    opposition = OppositionTraitement(
        membre_id=demande.objet_id, organisation_id=demande.organisation_id, traitement=code, demande_id=demande.id,
        motif=demande.motif, effective_le=datetime.now(UTC))
    # A concurrent approval of a twin request: 409 (the partial unique index), not a 500.
    await flush_unique(session, deja, opposition)
    await audit.record(session, auth, action="ENREGISTRER_OPPOSITION", module=MODULE, entite_type="Membre",
                       entite_id=demande.objet_id, organisation_id=demande.organisation_id, severite="WARNING",
                       after={"demandeId": str(demande.id), "traitement": code},
                       description=f"Opposition au traitement {code} en vigueur, demandée par {demande.demande_par}, "
                                   f"approuvée par {auth.actor_name}")


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'opposition", demander=Permission.DONNEES_OPPOSITION_DEMANDER,
    decider=Permission.DONNEES_OPPOSITION_DECIDER,
    roles_decideurs=(Role.PRESIDENT.value, Role.ADMIN_ORGANISATION.value, Role.DELEGUE_PROTECTION_DONNEES.value),
    refus_decideur=("Seuls le PRESIDENT, l'ADMIN_ORGANISATION et le DELEGUE_PROTECTION_DONNEES de l'organisation "
                    "décident d'une opposition"),
    chemin="/api/donnees/oppositions/{id}", executer=_opposer, par_le_sujet=True, auteurs=_sujet,
    refus_auteur="Principe des quatre yeux: le membre concerné ne décide pas de sa propre opposition",
    refus_demande="Vous ne pouvez pas demander l'opposition de ce membre dans cette organisation"))


def _reponse(demande: DemandeApprobation, opposition: OppositionTraitement | None) -> OppositionResponse:
    decision = demande.decisions[-1] if demande.decisions else None
    code = _traitement(demande)
    nom = _nom(code)
    en_vigueur = opposition is not None and opposition.retiree_le is None
    if opposition is not None and opposition.retiree_le is not None:
        texte = LEVEE.format(nom=nom, date=opposition.retiree_le)
    elif opposition is not None:
        effet = next((d.effet_opposition for d in TRAITEMENTS() if d.code == code), "")
        texte = EN_VIGUEUR.format(nom=nom, date=opposition.effective_le, effet=effet)
    elif demande.statut == StatutDemande.REJETEE:
        texte = REJET.format(nom=nom, commentaire=decision.commentaire if decision else "")
    elif demande.statut == StatutDemande.RETIREE:
        texte = RETIREE
    else:
        texte = EN_ATTENTE.format(nom=nom)
    return OppositionResponse(
        id=demande.id, membre_id=demande.objet_id, organisation_id=demande.organisation_id, traitement=code,
        traitement_nom=nom, statut=StatutDemande(demande.statut), en_vigueur=en_vigueur, motif=demande.motif,
        demande_par=demande.demande_par, date_demande=demande.date_demande,
        decide_par=decision.decideur if decision else None, commentaire=decision.commentaire if decision else None,
        date_decision=demande.date_decision, effective_le=opposition.effective_le if opposition else None,
        retiree_le=opposition.retiree_le if opposition else None,
        retiree_par=opposition.retiree_par_nom if opposition else None, reponse=texte)


class OppositionService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def demander(self, membre_id: uuid.UUID | None, traitement: str, motif: str) -> OppositionResponse:
        membre, organisation = await sujet(self.session, self.auth, membre_id,
                                           Permission.DONNEES_OPPOSITION_DEMANDER, "son opposition à un traitement",
                                           "Ce membre a été effacé: aucun traitement ne le concerne plus")
        regle = declaration(traitement)
        if await OppositionTraitementRepository(self.session).en_vigueur(membre.id, regle.code) is not None:
            raise Conflict(f"Une opposition au traitement « {regle.nom} » est déjà en vigueur pour ce membre")
        courantes = await DemandeApprobationRepository(self.session, self.auth).courantes(GENRE, membre.id)
        if any(d.statut == StatutDemande.EN_ATTENTE and _traitement(d) == regle.code for d in courantes):
            raise Conflict(f"Une demande d'opposition au traitement « {regle.nom} » est déjà en attente")
        demande = await quatre_yeux.ouvrir(self.session, self.auth, POLITIQUE, organisation_id=organisation,
                                           motif=motif, objet_id=membre.id, details={"traitement": regle.code})
        await audit.record(self.session, self.auth, action="DEMANDER_OPPOSITION", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=organisation, severite="WARNING",
                           after={"membreId": str(membre.id), "traitement": regle.code, "motif": motif})
        return _reponse(demande, None)

    def _voit(self, demande: DemandeApprobation) -> bool:
        """Its requester, the member concerned, the deciders and the register's keepers of its organisation."""
        return (demande.demande_par_sub == self.auth.personne
                or (demande.objet_id is not None and demande.objet_id == self.auth.membre_id)
                or self.auth.can(Permission.DONNEES_OPPOSITION_DECIDER, demande.organisation_id)
                or self.auth.can(Permission.MEMBRE_GERER, demande.organisation_id))

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        demande = await DemandeApprobationRepository(self.session, self.auth).du_genre(
            GENRE, demande_id, scoped=False, for_update=for_update)
        if demande is None or not self._voit(demande):
            raise NotFound("Demande d'opposition introuvable")
        return demande

    async def _opposition(self, demande: DemandeApprobation, *,
                          for_update: bool = False) -> OppositionTraitement | None:
        if demande.statut != StatutDemande.APPROUVEE:
            return None
        return await OppositionTraitementRepository(self.session).de_la_demande(demande.id, for_update=for_update)

    async def obtenir(self, demande_id: uuid.UUID) -> OppositionResponse:
        demande = await self._get(demande_id)
        return _reponse(demande, await self._opposition(demande))

    async def miennes(self) -> list[OppositionResponse]:
        """The caller's own opposition requests (any state), newest first."""
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche de membre n'est liée à ce compte")
        demandes = await DemandeApprobationRepository(self.session, self.auth).du_sujet(
            GENRE, self.auth.membre_id, MAX_DEMANDES)
        return [_reponse(d, await self._opposition(d)) for d in demandes]

    async def decider(self, demande_id: uuid.UUID, decision: TypeDecision,
                      commentaire: str | None) -> OppositionResponse:
        demande = await self._get(demande_id, for_update=True)
        await quatre_yeux.decider(self.session, self.auth, demande, decision, commentaire)
        action = "APPROUVER_OPPOSITION" if decision is TypeDecision.APPROUVEE else "REJETER_OPPOSITION"
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           after={"statut": demande.statut, "traitement": _traitement(demande)},
                           description=commentaire)
        return _reponse(demande, await self._opposition(demande))

    async def retirer(self, demande_id: uuid.UUID, motif: str | None) -> OppositionResponse:
        """The member (or a register keeper for him, or the request's requester while it waits) withdraws: a
        pending request is withdrawn; an opposition in force is dated withdrawn and the processing applies again."""
        demande = await self._get(demande_id, for_update=True)
        sujet = demande.objet_id is not None and demande.objet_id == self.auth.membre_id
        if not (sujet or demande.demande_par_sub == self.auth.personne
                or self.auth.can(Permission.DONNEES_OPPOSITION_DEMANDER, demande.organisation_id)):
            raise Forbidden("Seuls le membre concerné et les gestionnaires du registre de son organisation retirent "
                            "son opposition")
        opposition = await self._opposition(demande, for_update=True)
        if demande.statut == StatutDemande.EN_ATTENTE:
            await quatre_yeux.retirer(self.session, demande, motif)
        elif opposition is not None and opposition.retiree_le is None:
            opposition.retiree_le = datetime.now(UTC)
            opposition.retiree_par = self.auth.personne
            opposition.retiree_par_nom = self.auth.actor_name
            await self.session.flush()
        else:
            etat = "retirée" if opposition is not None or demande.statut == StatutDemande.RETIREE else "rejetée"
            raise InvalidState(f"Demande d'opposition déjà {etat}: rien à retirer")
        await audit.record(self.session, self.auth, action="RETIRER_OPPOSITION", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           after={"statut": demande.statut, "traitement": _traitement(demande),
                                  "enVigueur": False},
                           description=motif)
        return _reponse(demande, opposition)
