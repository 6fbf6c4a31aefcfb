"""What each kind of four-eyes request means: its policy, registered by the area that owns the kind.

A policy says who may ask and who may decide (named permissions of core/permissions.py), how many deciders a
request needs (by its amount), who is excluded besides the requester (whoever recorded or confirmed the money it
is about), and what an approval carries out. People are compared by their person key (issuer, subject) only,
never by a display name: two accounts may share a name, one person may hold two roles.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.permissions import Permission
from unionflow.models.approbation import DemandeApprobation, StatutDemande

# How many deciders a request of this amount needs (None: a request without amount).
Niveaux = Callable[[AsyncSession, Decimal | None], Awaitable[int]]
# Person keys of whoever recorded or confirmed the money the request is about: they may ask, never approve.
Auteurs = Callable[[AsyncSession, DemandeApprobation], Awaitable[set[str]]]
# What the last approval carries out, in the decider's transaction (an error rolls the decision back); the last
# argument is what the kind's service handed to ``decider`` (its settings, …).
Executer = Callable[[AsyncSession, AuthContext, DemandeApprobation, Any], Awaitable[None]]


async def un_decideur(_session: AsyncSession, _montant: Decimal | None) -> int:
    return 1


@dataclass(frozen=True)
class Politique:
    genre: str
    # The request's noun in French answers: "Demande d'approbation", "Demande de réouverture", …
    nom: str
    # Who may ask: ``demander``, or the permission given for the request's nature (an undo of a payment is asked by
    # whoever may cancel payments, of an entry by whoever may write entries, …).
    demander: Permission
    decider: Permission
    # Roles under which a decision is recorded, first held first (kept with the decision for the audit trail).
    roles_decideurs: tuple[str, ...]
    refus_decideur: str
    # Where the kind's routes show and decide one request: "/api/finance/approbations/{id}".
    chemin: str
    demander_par_nature: Mapping[str, Permission] = field(default_factory=dict)
    refus_demande: str = "Vous ne pouvez pas faire cette demande dans cette organisation"
    niveaux: Niveaux = un_decideur
    auteurs: Auteurs | None = None
    executer: Executer | None = None
    # Decided under another role than the one the request was made with (the requester's role is kept).
    autre_role: bool = False
    # The member the request is about (``objet_id``) may file it himself without ``demander``: a right of the
    # data subject (erasure, Loi 2008-12), not an act of the bureau. Deciding is unchanged.
    par_le_sujet: bool = False
    # Its refusal, ``{role}`` being the requester's role.
    refus_autre_role: str = "Décidée sous un autre rôle que celui de la demande ({role})"
    # How the kind's published answers spell a withdrawn request.
    retiree: str = StatutDemande.RETIREE.value
    refus_demandeur: str = "Principe des quatre yeux: on ne décide pas de sa propre demande"
    refus_auteur: str = ("Principe des quatre yeux: la personne qui a enregistré ou confirmé cet argent ne peut pas "
                         "approuver la demande")

    def permission_demande(self, nature: str | None) -> Permission:
        return self.demander_par_nature.get(nature or "", self.demander)

    def statut(self, demande: DemandeApprobation) -> str:
        """The request's state as the kind publishes it."""
        return self.retiree if demande.statut == StatutDemande.RETIREE else demande.statut


POLITIQUES: dict[str, Politique] = {}


def enregistrer(politique: Politique) -> Politique:
    """Called once by the owning area when its module is imported (the application imports every area)."""
    POLITIQUES[politique.genre] = politique
    return politique


def politique(genre: str) -> Politique:
    return POLITIQUES[genre]
