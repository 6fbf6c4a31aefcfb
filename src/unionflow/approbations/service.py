"""The four-eyes mechanism, the same for every kind: open a request, decide it, withdraw it.

EN_ATTENTE → APPROUVEE once the number of distinct deciders the kind's policy requires approved (the policy's
``executer`` carries the approval out in the same transaction) → REJETEE at the first rejection → RETIREE when the
requester (or the system, its object gone) withdraws it. A decider holds the kind's ``decider`` permission in the
request's organisation; never the requester, never twice on one request, never whoever recorded or confirmed the
money (``auteurs``) for an approval: all compared by person key (issuer, subject), never by display name. The
kinds' areas keep their routes, answers and audit lines; this module holds no business rule of theirs.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations.politiques import POLITIQUES, Politique, politique
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.approbations.schemas import AApprouverResponse
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState
from unionflow.core.pagination import Page, PageParams
from unionflow.models.annulation import TypeAnnulation
from unionflow.models.approbation import (
    DecisionDemande,
    DemandeApprobation,
    GenreDemande,
    StatutDemande,
    TypeDecision,
)
from unionflow.models.finance import TypeObjetApprobation


async def ouvrir(session: AsyncSession, auth: AuthContext, regle: Politique, *, organisation_id: uuid.UUID,
                 motif: str, nature: str | None = None, objet_id: uuid.UUID | None = None,
                 montant: Decimal | None = None, devise: str | None = None, numero: str | None = None,
                 role_demandeur: str | None = None, details: dict[str, Any] | None = None) -> DemandeApprobation:
    """A new pending request, asked by the caller; its number of deciders follows the kind's policy."""
    if not (regle.par_le_sujet and objet_id is not None and objet_id == auth.membre_id):
        auth.require(regle.permission_demande(nature), organisation_id, regle.refus_demande)
    demande = DemandeApprobation(
        genre=regle.genre, nature=nature, numero=numero, organisation_id=organisation_id, objet_id=objet_id,
        montant=montant, devise=devise, motif=motif, statut=StatutDemande.EN_ATTENTE.value,
        niveaux_requis=await regle.niveaux(session, montant), niveau_atteint=0, demande_par=auth.actor_name,
        demande_par_sub=auth.personne, role_demandeur=role_demandeur, date_demande=datetime.now(UTC),
        details=details, decisions=[])
    session.add(demande)
    await session.flush()
    return demande


def role_du_decideur(auth: AuthContext, demande: DemandeApprobation) -> str | None:
    """Whether the caller may decide on ``demande`` (403 with the reason otherwise), and under which role."""
    regle = politique(demande.genre)
    auth.require(regle.decider, demande.organisation_id, regle.refus_decideur)
    if demande.demande_par_sub == auth.personne:
        raise Forbidden(regle.refus_demandeur)
    held = auth.roles_in(demande.organisation_id)
    roles = [r for r in regle.roles_decideurs if r in held]
    if regle.autre_role:
        roles = [r for r in roles if r != demande.role_demandeur]
        if not roles:
            raise Forbidden(regle.refus_autre_role.format(role=demande.role_demandeur))
    return roles[0] if roles else None


async def decider(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation, decision: TypeDecision,
                  commentaire: str | None, contexte: Any = None) -> DecisionDemande:
    """Record the caller's decision at the next level (the request is locked by the caller); the last approval
    runs the kind's ``executer`` (given ``contexte``)."""
    regle = politique(demande.genre)
    role = role_du_decideur(auth, demande)
    if demande.statut != StatutDemande.EN_ATTENTE:
        raise InvalidState(f"{regle.nom} déjà {regle.statut(demande)}")
    if any(d.decideur_sub == auth.personne for d in demande.decisions):
        raise Forbidden("Vous avez déjà approuvé un niveau: le niveau suivant revient à une autre personne")
    if decision is TypeDecision.APPROUVEE and regle.auteurs is not None \
            and auth.personne in await regle.auteurs(session, demande):
        raise Forbidden(regle.refus_auteur)
    now = datetime.now(UTC)
    niveau = demande.niveau_atteint + 1
    ligne = DecisionDemande(niveau=niveau, decision=decision.value, decideur=auth.actor_name,
                            decideur_sub=auth.personne, role=role, commentaire=commentaire, date_decision=now)
    demande.decisions.append(ligne)
    if decision is TypeDecision.REJETEE:
        demande.statut = StatutDemande.REJETEE.value
        demande.date_decision = now
    else:
        demande.niveau_atteint = niveau
        if niveau >= demande.niveaux_requis:
            demande.statut = StatutDemande.APPROUVEE.value
            demande.date_decision = now
    await session.flush()
    if demande.statut == StatutDemande.APPROUVEE and regle.executer is not None:
        await regle.executer(session, auth, demande, contexte)
    return ligne


def verifier_demandeur(auth: AuthContext, demande: DemandeApprobation, refus: str, *, admin: bool = False) -> None:
    """Only the requester withdraws (``admin``: a union administrator too), and only a pending request."""
    if demande.demande_par_sub != auth.personne and not (admin and auth.is_global):
        raise Forbidden(refus)
    if demande.statut != StatutDemande.EN_ATTENTE:
        regle = politique(demande.genre)
        raise InvalidState(f"{regle.nom} déjà {regle.statut(demande)}")


async def retirer(session: AsyncSession, demande: DemandeApprobation, motif: str | None) -> None:
    demande.statut = StatutDemande.RETIREE.value
    demande.motif_retrait = motif
    demande.date_decision = datetime.now(UTC)
    await session.flush()


# Any organisation: a union-wide role holds a permission there as in every other.
_AILLEURS = uuid.UUID(int=0)


def portees(auth: AuthContext) -> dict[str, frozenset[uuid.UUID] | None]:
    """Per kind, the organisations where the caller may decide (None: every organisation he sees); kinds he
    decides nowhere are left out."""
    result: dict[str, frozenset[uuid.UUID] | None] = {}
    for genre, regle in POLITIQUES.items():
        if auth.can(regle.decider, _AILLEURS):
            result[genre] = None
            continue
        organisations = frozenset(o for o in auth.memberships if auth.can(regle.decider, o))
        if organisations:
            result[genre] = organisations
    return result


async def a_approuver(session: AsyncSession, auth: AuthContext, params: PageParams) -> Page[AApprouverResponse]:
    """Pending requests of every kind the caller may decide, oldest first: neither his own nor already decided by
    him (who recorded the money, or a role rule of the kind, is checked when he decides)."""
    par_genre = portees(auth)
    if not par_genre:
        return Page[AApprouverResponse].build([], params, 0, True)
    rows, total, exact = await DemandeApprobationRepository(session, auth).a_approuver(par_genre, params)
    return Page[AApprouverResponse].build([_ligne(d) for d in rows], params, total, exact)


def _nature(demande: DemandeApprobation) -> TypeObjetApprobation | TypeAnnulation | None:
    if demande.nature is None:
        return None
    if demande.genre == GenreDemande.FINANCE:
        return TypeObjetApprobation(demande.nature)
    return TypeAnnulation(demande.nature)


def _ligne(demande: DemandeApprobation) -> AApprouverResponse:
    return AApprouverResponse(
        id=demande.id, genre=GenreDemande(demande.genre), nature=_nature(demande), numero=demande.numero,
        organisation_id=demande.organisation_id, objet_id=demande.objet_id, montant=demande.montant,
        devise=demande.devise, motif=demande.motif, niveaux_requis=demande.niveaux_requis,
        niveau_atteint=demande.niveau_atteint, demande_par=demande.demande_par, date_demande=demande.date_demande,
        chemin=politique(demande.genre).chemin.format(id=demande.id))
