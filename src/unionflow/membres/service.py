"""Member records: creation with server-side numbering, updates, the status lifecycle, the member's own profile."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import acces_dossier, audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.membres.appartenance_service import AppartenanceService, normalise_roles
from unionflow.membres.repository import MembreFilters, MembreRepository
from unionflow.membres.schemas import (
    MOTIF_REQUIS,
    TRANSITIONS,
    CreateMembreRequest,
    MembreResponse,
    StatutRequest,
    UpdateMembreRequest,
    UpdateProfilRequest,
)
from unionflow.models import Membre, MembreOrganisation
from unionflow.models.membre import StatutAppartenance, StatutMembre

MODULE = "MEMBRES"
_FIELDS = ["prenom", "nom", "email", "telephone", "date_naissance", "genre", "profession", "adresse", "ville",
           "pays", "statut", "motif_statut"]


def to_response(membre: Membre) -> MembreResponse:
    data = {c: getattr(membre, c) for c in MembreResponse.model_fields if c != "compte_lie"}
    return MembreResponse.model_validate({**data, "compte_lie": membre.user_sub is not None})


async def new_numero(session: AsyncSession) -> str:
    return await sequential_number(session, "MBR", datetime.now(UTC).year)


async def insert_membre(session: AsyncSession, membre: Membre) -> None:
    """Numbers and inserts in one savepoint: a concurrent insert of the same e-mail answers 409 (not 500) and
    gives its number back, so member numbers stay gap-free."""
    try:
        async with session.begin_nested():
            membre.numero_membre = await new_numero(session)
            session.add(membre)
            await session.flush()
    except IntegrityError as exc:
        raise Conflict("Un membre existe déjà avec cette adresse e-mail") from exc


class MembreService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = MembreRepository(session, auth)

    async def _get(self, membre_id: uuid.UUID, *, for_update: bool = False) -> Membre:
        membre = await self.repo.get(membre_id, for_update=for_update)
        if membre is None:
            raise NotFound("Membre introuvable")
        return membre

    def _writer_orgs(self, memberships: list[MembreOrganisation]) -> set[uuid.UUID]:
        """The member's current organisations for which the caller keeps the register (a former organisation
        still reads the record of its former member, but no longer changes it)."""
        return {m.organisation_id for m in memberships
                if self.auth.can(Permission.MEMBRE_GERER, m.organisation_id)
                and m.statut != StatutAppartenance.TERMINE}

    def _audit_scope(self, memberships: list[MembreOrganisation]) -> uuid.UUID | None:
        """A union administrator's change is filed under the active organisation, else under the member's only
        current organisation, so that organisation's administrators find it in their journal."""
        if self.auth.active_organisation_id is not None:
            return self.auth.active_organisation_id
        current = {m.organisation_id for m in memberships if m.statut != StatutAppartenance.TERMINE}
        return next(iter(current)) if len(current) == 1 else None

    async def _check_writer(self, membre: Membre) -> uuid.UUID | None:
        """Returns the organisation the change is made for (audit scope); 403 if the caller keeps none."""
        memberships = await self.repo.memberships(membre.id)
        if self.auth.is_global:
            return self._audit_scope(memberships)
        orgs = self._writer_orgs(memberships)
        if not orgs:
            raise Forbidden("Vous ne tenez le registre d'aucune organisation de ce membre")
        return min(orgs)

    async def _check_email(self, email: str | None, exclude: uuid.UUID | None = None) -> str | None:
        if email is None:
            return None
        email = email.lower()
        if await self.repo.email_taken(email, exclude):
            raise Conflict("Un membre existe déjà avec cette adresse e-mail")
        return email

    async def creer(self, data: CreateMembreRequest) -> MembreResponse:
        appartenances = AppartenanceService(self.session, self.auth)
        if data.organisation_id is None:
            if not self.auth.is_global:
                raise RegleMetier("organisationId est obligatoire: le membre est inscrit dans votre organisation")
            if data.roles is not None:
                raise RegleMetier("roles n'a de sens qu'avec organisationId")
        roles = normalise_roles(data.roles)
        organisation = None
        if data.organisation_id is not None:
            organisation = await appartenances.writable_organisation(data.organisation_id, roles)
        values = data.model_dump(exclude={"organisation_id", "roles"})
        values["email"] = await self._check_email(data.email)
        membre = Membre(**values, statut=StatutMembre.ACTIF.value, date_statut=datetime.now(UTC))
        await insert_membre(self.session, membre)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Membre",
                           entite_id=membre.id, after=audit.snapshot(membre, _FIELDS),
                           organisation_id=organisation.id if organisation else None,
                           description=f"Inscription de {membre.prenom} {membre.nom} ({membre.numero_membre})")
        if organisation is not None:
            await appartenances.rattacher(membre, organisation, roles)
        return to_response(membre)

    async def obtenir(self, membre_id: uuid.UUID, ecran: str | None = None) -> MembreResponse:
        """``ecran``: the route or screen showing the file, logged as a read by someone else (core/acces_dossier.py)."""
        membre = await self._get(membre_id)
        if ecran is not None:
            acces_dossier.noter(self.session, self.auth, membre.id, ecran)
        return to_response(membre)

    async def obtenir_par_numero(self, numero: str, ecran: str | None = None) -> MembreResponse:
        membre = await self.repo.get_by_numero(numero)
        if membre is None:
            raise NotFound("Aucun membre visible avec ce numéro")
        if ecran is not None:
            acces_dossier.noter(self.session, self.auth, membre.id, ecran)
        return to_response(membre)

    async def lister(self, filters: MembreFilters, params: PageParams) -> Page[MembreResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[MembreResponse].build([to_response(m) for m in rows], params, total, exact)

    async def _apply(self, membre: Membre, changes: dict[str, Any], organisation_id: uuid.UUID | None,
                     action: str) -> MembreResponse:
        if membre.statut == StatutMembre.RADIE:
            raise InvalidState("La fiche d'un membre radié est figée")
        for required, libelle in (("prenom", "Le prénom"), ("nom", "Le nom")):
            if required in changes and changes[required] is None:
                raise RegleMetier(f"{libelle} ne peut pas être vide")
        if "email" in changes:
            changes["email"] = await self._check_email(changes["email"], membre.id)
        before = audit.snapshot(membre, _FIELDS)
        for key, value in changes.items():
            setattr(membre, key, value)
        after = audit.snapshot(membre, _FIELDS)
        if before == after:
            return to_response(membre)
        await flush_unique(self.session, "Un membre existe déjà avec cette adresse e-mail")
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Membre",
                           entite_id=membre.id, before=before, after=after,
                           organisation_id=organisation_id)
        return to_response(membre)

    async def modifier(self, membre_id: uuid.UUID, data: UpdateMembreRequest) -> MembreResponse:
        membre = await self._get(membre_id, for_update=True)
        organisation_id = await self._check_writer(membre)
        return await self._apply(membre, data.model_dump(exclude_unset=True), organisation_id, "MODIFIER")

    async def _me(self, *, for_update: bool = False) -> Membre:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        return await self._get(self.auth.membre_id, for_update=for_update)

    async def me(self) -> MembreResponse:
        return to_response(await self._me())

    async def update_me(self, data: UpdateProfilRequest) -> MembreResponse:
        membre = await self._me(for_update=True)
        return await self._apply(membre, data.model_dump(exclude_unset=True), None, "UPDATE_PROFIL")

    async def changer_statut(self, membre_id: uuid.UUID, data: StatutRequest) -> MembreResponse:
        if data.statut in MOTIF_REQUIS and not data.motif:
            raise RegleMetier(f"Un motif est obligatoire pour passer à {data.statut.value}")
        membre = await self._get(membre_id, for_update=True)
        memberships = await self.repo.memberships(membre.id, for_update=True)
        organisation_id = self._audit_scope(memberships)
        if not self.auth.is_global:
            # The status is the person's, across the union: an organisation decides it only when it is the only
            # one the person still belongs to; otherwise it ends its own membership instead.
            writer = self._writer_orgs(memberships)
            current = {m.organisation_id for m in memberships if m.statut != StatutAppartenance.TERMINE}
            if not writer or not current <= writer:
                raise Forbidden("Le membre appartient à d'autres organisations: mettez fin à son appartenance "
                                "à la vôtre, ou demandez à un administrateur de l'union")
            organisation_id = min(writer)
        current_statut = StatutMembre(membre.statut)
        if data.statut == current_statut:
            raise InvalidState(f"Le membre est déjà {current_statut.value}")
        if data.statut not in TRANSITIONS[current_statut]:
            raise InvalidState(f"Passage de {current_statut.value} à {data.statut.value} non autorisé")
        before = audit.snapshot(membre, ["statut", "motif_statut", "date_statut"])
        membre.statut = data.statut.value
        membre.motif_statut = data.motif
        membre.date_statut = datetime.now(UTC)
        touched = self._cascade(memberships, data.statut)
        await self.session.flush()
        severite = "WARNING" if data.statut in MOTIF_REQUIS else "INFO"
        await audit.record(self.session, self.auth, action=f"STATUT_{data.statut.value}", module=MODULE,
                           entite_type="Membre", entite_id=membre.id, before=before, severite=severite,
                           after={**audit.snapshot(membre, ["statut", "motif_statut", "date_statut"]),
                                  "appartenances_modifiees": touched},
                           organisation_id=organisation_id, description=data.motif)
        return to_response(membre)

    @staticmethod
    def _cascade(memberships: list[MembreOrganisation], statut: StatutMembre) -> list[str]:
        """Organisation roles follow the person: suspended with them, restored with them, ended by radiation."""
        moves = {
            StatutMembre.SUSPENDU: ({StatutAppartenance.ACTIF}, StatutAppartenance.SUSPENDU),
            StatutMembre.ACTIF: ({StatutAppartenance.SUSPENDU}, StatutAppartenance.ACTIF),
            StatutMembre.RADIE: ({StatutAppartenance.ACTIF, StatutAppartenance.SUSPENDU}, StatutAppartenance.TERMINE),
        }
        if statut not in moves:
            return []
        sources, target = moves[statut]
        touched = []
        for m in memberships:
            if m.statut in sources:
                m.statut = target.value
                if target is StatutAppartenance.TERMINE:
                    m.date_fin = date.today()
                touched.append(str(m.organisation_id))
        return touched
