from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, String, bindparam, cast, exists, false, func, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contient
from unionflow.core.repository import ScopedRepository, SystemRepository, pour_modifier
from unionflow.core.roles import ORGANISATION_STAFF_ROLES, Role
from unionflow.core.visibility import (
    EVERY,
    SCOPE_MEMBRE,
    SCOPE_ORGANISATIONS,
    Shape,
    Visibility,
    organisations_as,
    scope_param,
)
from unionflow.models import (
    Adhesion,
    Membre,
    MembreOrganisation,
    Organisation,
    PreferenceMembre,
    UtilisateurLocal,
)
from unionflow.models.membre import StatutAppartenance, StatutMembre

# Who keeps an organisation's member register (reads it): the read scope of the member rule below and of the
# register's export. ``AuthContext.staff_organisations`` answers "any staff role"; the register needs a finer
# scope (a treasurer reads it, an event organiser does not). Writing it and granting roles are permissions
# (``Permission.MEMBRE_GERER``, ``Permission.ROLE_ATTRIBUER`` in core/permissions.py).
# The commissaire aux comptes (extension) reads the register to check dues against members.
MEMBRE_READERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE, Role.PRESIDENT, Role.TRESORIER,
                            Role.COMMISSAIRE_AUX_COMPTES})

@dataclass(frozen=True)
class MembreFilters:
    q: str | None = None
    statut: str | None = None
    organisation_id: uuid.UUID | None = None
    email: str | None = None
    telephone: str | None = None


# Built once: it runs at every USSD and SMS callback, and building a select costs more CPU than its round trip's
# own work (core/maintenance.py, docs/performance.md « USSD et SMS »).
_PROFILS_TELEPHONE = (
    select(Membre, Organisation.id, Organisation.nom)
    .join(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
    .join(Organisation, Organisation.id == MembreOrganisation.organisation_id)
    .where(Membre.telephone == bindparam("telephone"), Membre.statut == StatutMembre.ACTIF,
           MembreOrganisation.statut == StatutAppartenance.ACTIF)
    .order_by(Membre.prenom, Membre.nom, Membre.id, Organisation.nom, Organisation.id))


class MembreRepository(ScopedRepository[Membre]):
    """The member register, and the one answer to "may this caller see this member?" (docs/decisions.md,
    "One member-visibility rule"): global roles see everyone; the register keepers (``MEMBRE_READERS``) of an
    organisation see the members linked to it by a membership or an application, of any status (former members
    stay in the register, an applicant's file is read by the organisation he applied to); anyone sees himself."""

    model = Membre
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is None or auth.is_global:
            return EVERY
        orgs = organisations_as(auth, MEMBRE_READERS)
        return Visibility(Shape(organisations=bool(orgs), membre=auth.membre_id is not None),
                          {SCOPE_ORGANISATIONS: sorted(orgs), SCOPE_MEMBRE: auth.membre_id})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        if shape.every:
            return true()
        clauses: list[ColumnElement[bool]] = []
        if shape.organisations:
            orgs = scope_param(SCOPE_ORGANISATIONS, values, expanding=True)
            clauses.append(exists().where(MembreOrganisation.membre_id == Membre.id,
                                          MembreOrganisation.organisation_id.in_(orgs)))
            orgs = scope_param(SCOPE_ORGANISATIONS, values, expanding=True)
            clauses.append(exists().where(Adhesion.membre_id == Membre.id, Adhesion.organisation_id.in_(orgs)))
        if shape.membre:
            clauses.append(Membre.id == scope_param(SCOPE_MEMBRE, values))
        return or_(*clauses) if clauses else false()

    async def get_by_numero(self, numero: str) -> Membre | None:
        return (await self.session.execute(self.select().where(Membre.numero_membre == numero))).scalar_one_or_none()

    async def search(self, filters: MembreFilters, params: PageParams) -> tuple[list[Membre], int, bool]:
        stmt = self.select()
        if filters.q:
            stmt = stmt.where(contient(Membre.recherche, filters.q))
        if filters.statut:
            stmt = stmt.where(Membre.statut == filters.statut)
        if filters.email:
            stmt = stmt.where(Membre.email == filters.email.lower())
        if filters.telephone:
            stmt = stmt.where(Membre.telephone == filters.telephone)
        if filters.organisation_id:
            stmt = stmt.where(exists().where(MembreOrganisation.membre_id == Membre.id,
                                             MembreOrganisation.organisation_id == filters.organisation_id))
        return await self.paginate(stmt.order_by(Membre.nom, Membre.prenom, Membre.id), params)

    # Unscoped look-ups: uniqueness and identity matching concern every record, visible or not.

    async def by_email(self, email: str, *, for_update: bool = False) -> Membre | None:
        stmt = select(Membre).where(Membre.email == email.lower())
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def noms_par_email(self, emails: list[str]) -> dict[str, str]:
        """"Prénom Nom" of the members with these e-mails (keys as given): a receipt names the person who
        received the money rather than his login."""
        wanted = {e.lower(): e for e in emails if e and "@" in e}
        if not wanted:
            return {}
        rows = await self.session.execute(select(Membre.email, Membre.prenom, Membre.nom)
                                          .where(Membre.email.in_(list(wanted))))
        return {wanted[email]: f"{prenom} {nom}".strip() for email, prenom, nom in rows.all() if email in wanted}

    async def profils_telephone(self, telephone: str) -> list[tuple[Membre, uuid.UUID, str]]:
        """(member, organisation id, organisation name) of every active membership of the active members with
        this phone number (E.164): whom a USSD caller may speak for. Unscoped: the gateway has no caller."""
        return [(m, org_id, nom) for m, org_id, nom in
                (await self.session.execute(_PROFILS_TELEPHONE, {"telephone": telephone})).all()]

    async def email_taken(self, email: str, exclude: uuid.UUID | None = None) -> bool:
        stmt = select(Membre.id).where(Membre.email == email.lower())
        if exclude is not None:
            stmt = stmt.where(Membre.id != exclude)
        return (await self.session.execute(stmt.limit(1))).first() is not None

    async def sub_taken(self, issuer: str, sub: str) -> bool:
        """A member is already linked to the account (``issuer``, ``sub``)."""
        stmt = select(Membre.id).where(Membre.user_iss == issuer, Membre.user_sub == sub).limit(1)
        return (await self.session.execute(stmt)).first() is not None

    async def appartenances_des_comptes(self, issuer: str, comptes: list[tuple[str, str | None]],
                                        ) -> list[tuple[str | None, str | None, uuid.UUID, str, list[str]]]:
        """The current memberships of the members linked to these accounts (``comptes``: subject, e-mail), as
        core/auth.py links them: by (issuer, subject), or by e-mail for a member not linked yet. Rows: the member's
        subject, his e-mail, the organisation's id and name, the roles held there. For the accounts list of the
        union's administration (global: no scope)."""
        subs = [sub for sub, _ in comptes]
        emails = [email.lower() for _, email in comptes if email]
        if not subs:
            return []
        lie = (Membre.user_iss == issuer) & Membre.user_sub.in_(subs)
        par_email = Membre.user_sub.is_(None) & func.lower(Membre.email).in_(emails)
        stmt = (select(Membre.user_sub, Membre.email, Organisation.id, Organisation.nom, MembreOrganisation.roles)
                .join(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
                .join(Organisation, Organisation.id == MembreOrganisation.organisation_id)
                .where(or_(lie, par_email), MembreOrganisation.statut == StatutAppartenance.ACTIF)
                .order_by(Organisation.nom, Organisation.id))
        return [(sub, email, org_id, nom, list(roles or []))
                for sub, email, org_id, nom, roles in (await self.session.execute(stmt)).all()]

    async def local_user(self, email: str) -> UtilisateurLocal | None:
        stmt = select(UtilisateurLocal).where(func.lower(UtilisateurLocal.email) == email.lower())
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        return await self.session.get(Organisation, organisation_id)

    async def memberships(self, membre_id: uuid.UUID, *, for_update: bool = False) -> list[MembreOrganisation]:
        stmt = select(MembreOrganisation).where(MembreOrganisation.membre_id == membre_id)
        if for_update:
            stmt = stmt.with_for_update()
        return list((await self.session.execute(stmt.order_by(MembreOrganisation.date_debut))).scalars())

    async def memberships_with_names(self, membre_id: uuid.UUID) -> list[tuple[MembreOrganisation, str]]:
        stmt = (select(MembreOrganisation, Organisation.nom)
                .join(Organisation, Organisation.id == MembreOrganisation.organisation_id)
                .where(MembreOrganisation.membre_id == membre_id)
                .order_by(Organisation.nom, Organisation.id))
        return [(m, nom) for m, nom in (await self.session.execute(stmt)).all()]

    async def membership(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                         *, for_update: bool = False) -> MembreOrganisation | None:
        stmt = select(MembreOrganisation).where(MembreOrganisation.membre_id == membre_id,
                                                MembreOrganisation.organisation_id == organisation_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def actifs_avec_roles(self, organisation_id: uuid.UUID, roles: frozenset[str]) -> list[Membre]:
        """Members with an active membership of the organisation holding one of ``roles`` there (unscoped:
        who is told of a pending decision is not the caller's choice)."""
        stmt = (select(Membre, MembreOrganisation.roles)
                .join(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
                .where(MembreOrganisation.organisation_id == organisation_id,
                       MembreOrganisation.statut == StatutAppartenance.ACTIF)
                .order_by(Membre.id))
        return [membre for membre, held in (await self.session.execute(stmt)).tuples()
                if not roles.isdisjoint(held or [])]

    async def bureau(self, organisation_id: uuid.UUID) -> list[tuple[Membre, list[str]]]:
        """Members with an active membership holding an office (a role beyond MEMBRE), by name, with their roles
        (unscoped: the caller checked the organisation's administration permission)."""
        stmt = (select(Membre, MembreOrganisation.roles)
                .join(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
                .where(MembreOrganisation.organisation_id == organisation_id,
                       MembreOrganisation.statut == StatutAppartenance.ACTIF, _tient_un_office())
                .order_by(Membre.nom, Membre.prenom))
        return [(membre, list(held or [])) for membre, held in (await self.session.execute(stmt)).tuples()]

    async def effectifs(self, organisation_ids: list[uuid.UUID]) -> dict[uuid.UUID, tuple[int, int, set[str]]]:
        """Per organisation: its number of active memberships, how many of them hold an office, and the offices
        held there (set-up progress)."""
        if not organisation_ids:
            return {}
        actif = (MembreOrganisation.organisation_id.in_(organisation_ids),
                 MembreOrganisation.statut == StatutAppartenance.ACTIF)
        counts = (select(MembreOrganisation.organisation_id, func.count()).where(*actif)
                  .group_by(MembreOrganisation.organisation_id))
        totals = {org: int(n) for org, n in (await self.session.execute(counts)).tuples()}
        holders: dict[uuid.UUID, int] = {}
        offices: dict[uuid.UUID, set[str]] = {}
        stmt = select(MembreOrganisation.organisation_id, MembreOrganisation.roles).where(*actif, _tient_un_office())
        for org, held in (await self.session.execute(stmt)).tuples():
            holders[org] = holders.get(org, 0) + 1
            offices.setdefault(org, set()).update(set(held or []) - {Role.MEMBRE.value})
        return {org: (n, holders.get(org, 0), offices.get(org, set())) for org, n in totals.items()}

    async def select_adhesions_actives(self, organisation_id: uuid.UUID
                                       ) -> list[tuple[uuid.UUID, date, date | None]]:
        """(member id, membership start, membership end) of the active members with an active membership, in id
        order (unscoped: dues generation covers every active member, whoever asks, and compares each membership
        with the period)."""
        stmt = (select(MembreOrganisation.membre_id, MembreOrganisation.date_debut, MembreOrganisation.date_fin)
                .join(Membre, Membre.id == MembreOrganisation.membre_id)
                .where(MembreOrganisation.organisation_id == organisation_id,
                       MembreOrganisation.statut == StatutAppartenance.ACTIF, Membre.statut == StatutMembre.ACTIF)
                .order_by(MembreOrganisation.membre_id))
        return [(m, debut, fin) for m, debut, fin in (await self.session.execute(stmt)).all()]

    async def has_active_membership(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> bool:
        stmt = select(MembreOrganisation.id).where(
            MembreOrganisation.membre_id == membre_id, MembreOrganisation.organisation_id == organisation_id,
            MembreOrganisation.statut == StatutAppartenance.ACTIF)
        return await self.session.scalar(stmt) is not None

    async def lock_membres(self, membre_ids: list[uuid.UUID]) -> dict[uuid.UUID, Membre]:
        """The members' rows, locked in id order (no deadlock between two callers), by id."""
        stmt = pour_modifier(select(Membre).where(Membre.id.in_(membre_ids)).order_by(Membre.id))
        return {m.id: m for m in (await self.session.execute(stmt)).scalars()}

    async def get_destinataire(self, membre_id: uuid.UUID, organisation_id: uuid.UUID
                               ) -> tuple[Membre, str, PreferenceMembre | None] | None:
        """The member, the organisation's name and the member's preferences in ONE statement (the receipt
        notification of the payment write path, docs/architecture.md "Payment write path"; its round trips are
        counted by tests/paiements/encaissement/test_allers_retours.py). None if the member is gone."""
        found = (await self.session.execute(
            select(Membre, Organisation.nom, PreferenceMembre).select_from(Membre)
            .join(Organisation, Organisation.id == organisation_id)
            .outerjoin(PreferenceMembre, PreferenceMembre.membre_id == Membre.id)
            .where(Membre.id == membre_id))).first()
        return (found[0], found[1], found[2]) if found is not None else None

    async def count_admins(self, organisation_id: uuid.UUID) -> int:
        """Active memberships holding ADMIN_ORGANISATION (roles is a JSON list: its text contains the quoted name
        on both back ends)."""
        stmt = select(func.count()).select_from(MembreOrganisation).where(
            MembreOrganisation.organisation_id == organisation_id,
            MembreOrganisation.statut == StatutAppartenance.ACTIF,
            cast(MembreOrganisation.roles, String).like(f'%"{Role.ADMIN_ORGANISATION.value}"%'),
        )
        return int((await self.session.execute(stmt)).scalar_one())

    async def noms(self, membre_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
        """"Prénom Nom" by id, unscoped: the caller shows the names of people it already reaches (participants
        of a conversation it takes part in)."""
        if not membre_ids:
            return {}
        stmt = select(Membre.id, Membre.prenom, Membre.nom).where(Membre.id.in_(membre_ids))
        return {i: f"{p} {n}" for i, p, n in (await self.session.execute(stmt)).all()}

    async def actifs(self, organisation_id: uuid.UUID, membre_ids: list[uuid.UUID] | None) -> list[Membre]:
        """The active members with an active membership of the organisation (among ``membre_ids`` if given), in
        id order; unscoped: the caller (a notification sent for the organisation) asked its permission."""
        stmt = (select(Membre).join(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
                .where(MembreOrganisation.organisation_id == organisation_id,
                       MembreOrganisation.statut == StatutAppartenance.ACTIF,
                       Membre.statut == StatutMembre.ACTIF))
        if membre_ids is not None:
            stmt = stmt.where(Membre.id.in_(membre_ids))
        return list((await self.session.execute(stmt.order_by(Membre.id))).scalars())

    async def actifs_parmi(self, organisation_id: uuid.UUID, membre_ids: set[uuid.UUID]) -> set[uuid.UUID]:
        """Those of ``membre_ids`` with an active membership of the organisation (unscoped, like
        ``has_active_membership``)."""
        stmt = select(MembreOrganisation.membre_id).where(MembreOrganisation.organisation_id == organisation_id,
                                                          MembreOrganisation.membre_id.in_(membre_ids),
                                                          MembreOrganisation.statut == StatutAppartenance.ACTIF)
        return set((await self.session.execute(stmt)).scalars())

    async def radies_avant(self, limite: datetime) -> list[Membre]:
        """Members struck off before ``limite`` whose identity is still kept (retention, donnees_membre/jobs.py)."""
        stmt = select(Membre).where(Membre.statut == StatutMembre.RADIE, Membre.date_statut < limite,
                                    Membre.date_effacement.is_(None)).order_by(Membre.date_statut, Membre.id)
        return list((await self.session.execute(stmt.with_for_update())).scalars())


def _tient_un_office() -> ColumnElement[bool]:
    """roles (a JSON list) holds an office: its text contains one of the quoted names, on both back ends."""
    text = cast(MembreOrganisation.roles, String)
    return or_(*(text.like(f'%"{role}"%') for role in sorted(ORGANISATION_STAFF_ROLES)))


async def membre_visible(session: AsyncSession, auth: AuthContext, membre_id: uuid.UUID) -> Membre | None:
    """The member if the caller may see him (``MembreRepository``'s rule), else None (404): the one check other
    areas (adhesions, cotisations, paiements, ...) make before acting on a member named in a request."""
    return await MembreRepository(session, auth).get(membre_id)


async def nom_affiche(session: AsyncSession, auth: AuthContext) -> str:
    """How the caller is shown to others (ticket and suggestion authors): their member name, else their login."""
    membre = await MembreRepository(session, None).get(auth.membre_id) if auth.membre_id else None
    return f"{membre.prenom} {membre.nom}" if membre else auth.actor_name


class EffectifRepository(SystemRepository[MembreOrganisation]):
    """Headcounts of an organisation at a date, for its yearly report (the general-assembly pack). Unscoped: the
    caller checked that the organisation's books are visible to the reader."""

    model = MembreOrganisation

    async def actifs_au(self, organisation_id: uuid.UUID, jour: date) -> int:
        """Memberships begun on or before ``jour`` and not ended by then (the membership's own dates: a status
        has no history, its end date has)."""
        stmt = select(func.count()).where(
            MembreOrganisation.organisation_id == organisation_id, MembreOrganisation.date_debut <= jour,
            or_(MembreOrganisation.date_fin.is_(None), MembreOrganisation.date_fin > jour))
        return int((await self.session.execute(stmt)).scalar_one())

    async def entrees(self, organisation_id: uuid.UUID, debut: date, fin: date) -> int:
        """Memberships begun between ``debut`` and ``fin`` inclusive."""
        stmt = select(func.count()).where(
            MembreOrganisation.organisation_id == organisation_id, MembreOrganisation.date_debut >= debut,
            MembreOrganisation.date_debut <= fin)
        return int((await self.session.execute(stmt)).scalar_one())
