"""Memberships: a member belongs to organisations and holds organisation roles there.

One place for every change of a membership (the Membres and Rôles routes and the super administrator's
association all come here), so the rules on roles, suspended organisations and the last administrator hold
whichever route is used.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import acces_dossier, audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.roles import ORGANISATION_ROLES, Role
from unionflow.core.visibility import organisations_as
from unionflow.membres.repository import MEMBRE_READERS, MembreRepository
from unionflow.membres.schemas import AppartenanceResponse
from unionflow.models import Membre, MembreOrganisation, Organisation
from unionflow.models.membre import StatutAppartenance, StatutMembre
from unionflow.models.organisation import StatutOrganisation

MODULE = "MEMBRES"


def normalise_roles(roles: Iterable[str] | None) -> list[str]:
    """Only organisation roles; MEMBRE always held (belonging to the organisation is being its member)."""
    if roles is None:
        return [Role.MEMBRE.value]
    wanted = {str(r) for r in roles}
    refused = sorted(wanted - {r.value for r in ORGANISATION_ROLES})
    if refused:
        raise RegleMetier(f"Rôles non attribuables dans une organisation: {', '.join(refused)}",
                           extra={"errors": [{"field": "roles", "message": f"rôle non autorisé: {r}",
                                              "type": "role"} for r in refused]})
    return sorted(wanted | {Role.MEMBRE.value})


def response(membership: MembreOrganisation, organisation_nom: str) -> AppartenanceResponse:
    return AppartenanceResponse(membre_id=membership.membre_id, organisation_id=membership.organisation_id,
                                organisation_nom=organisation_nom, roles=list(membership.roles or []),
                                statut=membership.statut, date_debut=membership.date_debut,
                                date_fin=membership.date_fin)


class AppartenanceService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = MembreRepository(session, auth)

    async def _membre(self, membre_id: uuid.UUID, *, for_update: bool = False) -> Membre:
        membre = await self.repo.get(membre_id, for_update=for_update)
        if membre is None:
            raise NotFound("Membre introuvable")
        return membre

    async def _organisation(self, organisation_id: uuid.UUID) -> Organisation:
        organisation = await self.repo.organisation(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        return organisation

    async def writable_organisation(self, organisation_id: uuid.UUID, roles: list[str]) -> Organisation:
        """The organisation a member is enrolled in: it exists, the caller keeps its register, grants the staff
        roles asked for only if they administer it, and it is not suspended."""
        organisation = await self._organisation(organisation_id)
        self.auth.require(Permission.MEMBRE_GERER, organisation.id,
                          "Vous ne tenez pas le registre de cette organisation")
        if set(roles) - {Role.MEMBRE.value}:
            self.auth.require(Permission.ROLE_ATTRIBUER, organisation.id,
                              "Seul un administrateur de l'organisation attribue des rôles autres que MEMBRE")
        if organisation.statut != StatutOrganisation.ACTIVE:
            raise InvalidState("Organisation suspendue: aucune nouvelle appartenance")
        return organisation

    async def rattacher(self, membre: Membre, organisation: Organisation, roles: list[str],
                     existing: MembreOrganisation | None = None, *, audited: bool = True) -> MembreOrganisation:
        """Creates the membership, or reopens an ended one (the pair is unique: history stays in the audit).
        ``audited=False`` when the caller writes one entry for a larger operation."""
        membership = existing or MembreOrganisation(membre_id=membre.id, organisation_id=organisation.id)
        before = audit.snapshot(membership, ["roles", "statut", "date_debut", "date_fin"]) if existing else None
        membership.roles = roles
        membership.statut = StatutAppartenance.ACTIF.value
        membership.date_debut = date.today()
        membership.date_fin = None
        self.session.add(membership)
        await self.session.flush()
        if not audited:
            return membership
        await audit.record(self.session, self.auth, action="AJOUTER_APPARTENANCE", module=MODULE,
                           entite_type="MembreOrganisation", entite_id=membership.id, before=before,
                           after=audit.snapshot(membership, ["membre_id", "organisation_id", "roles", "statut"]),
                           organisation_id=organisation.id,
                           severite="WARNING" if set(roles) - {Role.MEMBRE.value} else "INFO",
                           description=f"{membre.numero_membre} rejoint {organisation.nom}")
        return membership

    async def lister(self, membre_id: uuid.UUID, ecran: str | None = None) -> list[AppartenanceResponse]:
        """``ecran``: the route showing them, logged as a read of the member's file (core/acces_dossier.py)."""
        membre = await self._membre(membre_id)
        if ecran is not None:
            acces_dossier.noter(self.session, self.auth, membre.id, ecran)
        rows = await self.repo.memberships_with_names(membre.id)
        if not (self.auth.is_global or membre.id == self.auth.membre_id):
            # Staff see the member's place in their own organisations, not the rest of their life.
            mine = organisations_as(self.auth, MEMBRE_READERS)
            rows = [(m, nom) for m, nom in rows if m.organisation_id in mine]
        return [response(m, nom) for m, nom in rows]

    async def ajouter(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                  roles_in: Iterable[str] | None) -> AppartenanceResponse:
        roles = normalise_roles(roles_in)
        membre = await self._membre(membre_id, for_update=True)
        organisation = await self.writable_organisation(organisation_id, roles)
        if membre.statut in (StatutMembre.SUSPENDU, StatutMembre.RADIE):
            raise InvalidState(f"Membre {membre.statut}: aucune nouvelle appartenance")
        existing = await self.repo.membership(membre.id, organisation.id, for_update=True)
        if existing is not None and existing.statut != StatutAppartenance.TERMINE:
            raise Conflict("Le membre appartient déjà à cette organisation")
        membership = await self.rattacher(membre, organisation, roles, existing)
        return response(membership, organisation.nom)

    async def _membership(self, membre: Membre, organisation: Organisation) -> MembreOrganisation:
        membership = await self.repo.membership(membre.id, organisation.id, for_update=True)
        if membership is None:
            raise NotFound("Le membre n'appartient pas à cette organisation")
        if membership.statut == StatutAppartenance.TERMINE:
            raise InvalidState("Appartenance terminée: rouvrez-la d'abord")
        return membership

    async def _keep_an_admin(self, membership: MembreOrganisation, new_roles: list[str] | None) -> None:
        """An organisation administrator cannot leave their organisation without an administrator (they could
        not undo it); the union's administrators can."""
        if self.auth.is_global or membership.statut != StatutAppartenance.ACTIF:
            return
        if Role.ADMIN_ORGANISATION.value not in (membership.roles or []):
            return
        if new_roles is not None and Role.ADMIN_ORGANISATION.value in new_roles:
            return
        if await self.repo.count_admins(membership.organisation_id) <= 1:
            raise Conflict("Dernier administrateur de l'organisation: nommez-en un autre d'abord")

    async def definir_roles(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                        roles_in: Iterable[str]) -> AppartenanceResponse:
        roles = normalise_roles(roles_in)
        membre = await self._membre(membre_id)
        organisation = await self._organisation(organisation_id)
        self.auth.require(Permission.ROLE_ATTRIBUER, organisation.id,
                          "Seul un administrateur de l'organisation attribue ses rôles")
        membership = await self._membership(membre, organisation)
        if sorted(membership.roles or []) == roles:
            return response(membership, organisation.nom)
        await self._keep_an_admin(membership, roles)
        before = {"roles": list(membership.roles or [])}
        membership.roles = roles
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ATTRIBUER_ROLES", module="ROLES",
                           entite_type="MembreOrganisation", entite_id=membership.id, before=before,
                           after={"roles": roles, "membre_id": membre.id}, organisation_id=organisation.id,
                           severite="WARNING",
                           description=f"Rôles de {membre.numero_membre} dans {organisation.nom}: {', '.join(roles)}")
        return response(membership, organisation.nom)

    async def terminer(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                       motif: str | None) -> AppartenanceResponse:
        membre = await self._membre(membre_id)
        organisation = await self._organisation(organisation_id)
        self.auth.require(Permission.MEMBRE_GERER, organisation.id,
                          "Vous ne tenez pas le registre de cette organisation")
        membership = await self._membership(membre, organisation)
        await self._keep_an_admin(membership, None)
        before = audit.snapshot(membership, ["statut", "date_fin"])
        membership.statut = StatutAppartenance.TERMINE.value
        membership.date_fin = date.today()
        await self.session.flush()
        await audit.record(self.session, self.auth, action="TERMINER_APPARTENANCE", module=MODULE,
                           entite_type="MembreOrganisation", entite_id=membership.id, before=before,
                           after=audit.snapshot(membership, ["statut", "date_fin"]), organisation_id=organisation.id,
                           description=motif or f"{membre.numero_membre} quitte {organisation.nom}")
        return response(membership, organisation.nom)
