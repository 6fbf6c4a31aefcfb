"""A super administrator attaches a user account, by e-mail, to an organisation: the way the first officers of a
new organisation (or anyone the identity provider knows but the register does not) get in."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.admin_association.schemas import AssociationResponse, AssocierOrganisationRequest
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound
from unionflow.core.roles import Role
from unionflow.membres.appartenance_service import AppartenanceService, normalise_roles
from unionflow.membres.repository import MembreRepository
from unionflow.membres.service import insert_membre
from unionflow.models import Membre, UtilisateurLocal
from unionflow.models.membre import StatutAppartenance, StatutMembre


def names_from(email: str, user: UtilisateurLocal | None) -> tuple[str, str]:
    """The local account's names when it has them, else the e-mail's local part ("awa.diop" → Awa / Diop); the
    secretariat completes the record later."""
    if user is not None and (user.prenom or "").strip() and (user.nom or "").strip():
        return str(user.prenom).strip()[:100], str(user.nom).strip()[:100]
    parts = [p for p in re.split(r"[._\-+\d]+", email.split("@", 1)[0]) if p] or [email.split("@", 1)[0]]
    prenom = parts[0].title()[:100]
    nom = " ".join(parts[1:]).title()[:100] if len(parts) > 1 else prenom
    return prenom, nom


class AssociationService:
    def __init__(self, session: AsyncSession, auth: AuthContext, builtin_issuer: str) -> None:
        # Local accounts are the built-in issuer's: a link names that issuer with the account's id.
        self.builtin_issuer = builtin_issuer
        self.session = session
        self.auth = auth
        self.repo = MembreRepository(session, auth)
        self.appartenances = AppartenanceService(session, auth)

    async def _membre_for(self, email: str, user: UtilisateurLocal | None) -> tuple[Membre, bool]:
        membre = await self.repo.by_email(email, for_update=True)
        if membre is not None:
            return membre, False
        prenom, nom = names_from(email, user)
        link = str(user.id) if user is not None and not await self.repo.sub_taken(self.builtin_issuer,
                                                                                   str(user.id)) else None
        membre = Membre(prenom=prenom, nom=nom, email=email, statut=StatutMembre.ACTIF.value,
                        date_statut=datetime.now(UTC), user_sub=link,
                        user_iss=self.builtin_issuer if link else None)
        try:
            await insert_membre(self.session, membre)
            return membre, True
        except Conflict:
            # A concurrent call created the record first: continue with it, so that the call stays idempotent.
            existing = await self.repo.by_email(email, for_update=True)
            if existing is None:
                raise
            return existing, False

    async def associer(self, data: AssocierOrganisationRequest) -> AssociationResponse:
        email = str(data.email).lower()
        requested = normalise_roles(data.roles) if data.roles is not None else None
        organisation = await self.repo.organisation(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        user = await self.repo.local_user(email)
        changes: dict[str, Any] = {}

        membre, membre_cree = await self._membre_for(email, user)
        if membre_cree:
            changes["membre"] = audit.snapshot(membre, ["numero_membre", "prenom", "nom", "email", "user_sub"])
        elif membre.statut in (StatutMembre.SUSPENDU, StatutMembre.RADIE):
            raise InvalidState(f"Membre {membre.statut}: association impossible")
        elif membre.user_sub is None and user is not None and not await self.repo.sub_taken(self.builtin_issuer,
                                                                                              str(user.id)):
            membre.user_iss, membre.user_sub = self.builtin_issuer, str(user.id)
            changes["compte_lie"] = membre.user_sub

        membership = await self.repo.membership(membre.id, organisation.id, for_update=True)
        appartenance_creee = membership is None or membership.statut == StatutAppartenance.TERMINE
        if membership is None or appartenance_creee:
            roles = requested or [Role.MEMBRE.value]
            before = audit.snapshot(membership, ["roles", "statut"]) if membership is not None else None
            membership = await self.appartenances.rattacher(membre, organisation, roles, membership, audited=False)
            changes["appartenance"] = {"avant": before, "apres": {"roles": roles, "statut": membership.statut}}
        elif requested is not None and sorted(membership.roles or []) != requested:
            changes["roles"] = {"avant": list(membership.roles or []), "apres": requested}
            membership.roles = requested

        if changes:
            await self.session.flush()
            staff = set(membership.roles or []) - {Role.MEMBRE.value}
            await audit.record(self.session, self.auth, action="ASSOCIER_ORGANISATION", module="ADMINISTRATION",
                               entite_type="MembreOrganisation", entite_id=membership.id, after=changes,
                               organisation_id=organisation.id, severite="WARNING" if staff else "INFO",
                               description=f"{email} associé à {organisation.nom}")
        return AssociationResponse(
            membre_id=membre.id, numero_membre=membre.numero_membre, email=email, organisation_id=organisation.id,
            roles=list(membership.roles or []), statut=membership.statut, membre_cree=membre_cree,
            appartenance_creee=appartenance_creee, compte_lie=membre.user_sub is not None, modifie=bool(changes))
