"""Consents, notices and the access log of members' files (tables of donnees_personnelles).

Who reads them is this area's own rule (``lecteurs``): the member his own rows; the union's administrators all;
the data-protection officer (DELEGUE_PROTECTION_DONNEES) the rows of his organisations' members; for consents,
also the register keepers of the organisation the consent was given to (administrator, secretary, president)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, false, or_, select, true

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.core.roles import Role
from unionflow.core.visibility import organisations_as
from unionflow.models import (
    AccesDossier,
    Consentement,
    MembreOrganisation,
    NoticeInformation,
    OppositionTraitement,
    RecepisseTraitement,
)

# Register keepers who read (and, with consentement.recueillir, record) the consents given to their organisation.
LECTEURS_CONSENTEMENTS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE, Role.PRESIDENT})
DPO = frozenset({Role.DELEGUE_PROTECTION_DONNEES})


def organisations_dpo(auth: AuthContext) -> frozenset[uuid.UUID]:
    """Organisations where the caller acts as data-protection officer."""
    return organisations_as(auth, DPO)


def _membre_de(membre_col: Any, organisations: frozenset[uuid.UUID]) -> ColumnElement[bool]:
    """The member of the row holds (or held) a membership of one of ``organisations``."""
    if not organisations:
        return false()
    return exists().where(MembreOrganisation.membre_id == membre_col,
                          MembreOrganisation.organisation_id.in_(sorted(organisations)))


class ConsentementRepository(ScopedRepository[Consentement]):
    model = Consentement
    auth: AuthContext

    def scope(self) -> ColumnElement[bool]:
        if self.auth is None or self.auth.is_global:
            return true()
        clauses: list[ColumnElement[bool]] = []
        if self.auth.membre_id is not None:
            clauses.append(Consentement.membre_id == self.auth.membre_id)
        keepers = organisations_as(self.auth, LECTEURS_CONSENTEMENTS) | organisations_dpo(self.auth)
        if keepers:
            clauses.append(Consentement.organisation_id.in_(sorted(keepers)))
        return or_(*clauses) if clauses else false()

    async def du_membre(self, membre_id: uuid.UUID) -> list[Consentement]:
        """The member's consents the caller sees, newest first (withdrawn ones included: the history)."""
        stmt = self.select().where(Consentement.membre_id == membre_id).order_by(
            Consentement.donne_le.desc(), Consentement.id)
        return list((await self.session.execute(stmt)).scalars())


class ConsentementSystemRepository(SystemRepository[Consentement]):
    """Consents read for a rule (an aid request's health data needs one in force) or a uniqueness check, whoever
    the caller is."""

    model = Consentement

    async def en_vigueur(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, finalite: str,
                         *, for_update: bool = False) -> Consentement | None:
        stmt = self.select().where(Consentement.membre_id == membre_id,
                                   Consentement.organisation_id == organisation_id,
                                   Consentement.finalite == finalite, Consentement.retire_le.is_(None))
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()


class OppositionTraitementRepository(SystemRepository[OppositionTraitement]):
    """Oppositions to processings (Loi 2008-12): read by the request's service after its own visibility
    check, by the export, and by the places that process the data (notifications' outbox) whoever the caller is."""

    model = OppositionTraitement

    async def du_membre(self, membre_id: uuid.UUID) -> list[OppositionTraitement]:
        """The member's oppositions, in force and withdrawn, newest first."""
        stmt = self.select().where(OppositionTraitement.membre_id == membre_id).order_by(
            OppositionTraitement.effective_le.desc(), OppositionTraitement.id)
        return list((await self.session.execute(stmt)).scalars())

    async def en_vigueur(self, membre_id: uuid.UUID, traitement: str, *,
                         for_update: bool = False) -> OppositionTraitement | None:
        stmt = self.select().where(OppositionTraitement.membre_id == membre_id,
                                   OppositionTraitement.traitement == traitement,
                                   OppositionTraitement.retiree_le.is_(None))
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def de_la_demande(self, demande_id: uuid.UUID, *, for_update: bool = False) -> OppositionTraitement | None:
        stmt = self.select().where(OppositionTraitement.demande_id == demande_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def opposes(self, membre_ids: list[uuid.UUID], traitement: str) -> frozenset[uuid.UUID]:
        """Which of these members oppose ``traitement`` now (one query for a batch of recipients)."""
        if not membre_ids:
            return frozenset()
        stmt = select(OppositionTraitement.membre_id).where(
            OppositionTraitement.membre_id.in_(membre_ids), OppositionTraitement.traitement == traitement,
            OppositionTraitement.retiree_le.is_(None))
        return frozenset((await self.session.execute(stmt)).scalars())


class NoticeRepository(SystemRepository[NoticeInformation]):
    """The notice texts: public to every member (what he is asked to consent to)."""

    model = NoticeInformation

    async def texte(self, finalite: str, version: int, empreinte: str) -> NoticeInformation | None:
        """The stored row of this text (as rendered for one organisation), if a member already read it."""
        return (await self.session.execute(self.select().where(
            NoticeInformation.finalite == finalite, NoticeInformation.version == version,
            NoticeInformation.empreinte == empreinte))).scalar_one_or_none()


@dataclass(frozen=True)
class AccesFilters:
    membre_id: uuid.UUID | None = None
    organisation_id: uuid.UUID | None = None


class AccesDossierRepository(ScopedRepository[AccesDossier]):
    """The member reads the reads of his own file; the data-protection officer those of his organisations' members
    (whoever read them); the union's administrators all. Staff never read the log through their staff role."""

    model = AccesDossier
    auth: AuthContext

    def scope(self) -> ColumnElement[bool]:
        if self.auth is None or self.auth.is_global:
            return true()
        clauses: list[ColumnElement[bool]] = [_membre_de(AccesDossier.membre_id, organisations_dpo(self.auth))]
        if self.auth.membre_id is not None:
            clauses.append(AccesDossier.membre_id == self.auth.membre_id)
        return or_(*clauses)

    async def search(self, filters: AccesFilters, params: PageParams) -> tuple[list[AccesDossier], int, bool]:
        """The reads the caller sees, newest first."""
        stmt = self.select()
        if filters.membre_id is not None:
            stmt = stmt.where(AccesDossier.membre_id == filters.membre_id)
        if filters.organisation_id is not None:
            stmt = stmt.where(_membre_de(AccesDossier.membre_id, frozenset({filters.organisation_id})))
        return await self.paginate(stmt.order_by(AccesDossier.lu_le.desc(), AccesDossier.id), params)


class AccesDossierSystemRepository(SystemRepository[AccesDossier]):
    """The access log for the retention job (donnees_membre/jobs.py), unscoped."""

    model = AccesDossier

    async def supprimer_avant(self, limite: datetime) -> int:
        """Delete the reads older than ``limite``; how many."""
        stmt = delete(AccesDossier).where(AccesDossier.lu_le < limite)
        return await self.lignes_touchees(stmt)


class RecepisseTraitementRepository(SystemRepository[RecepisseTraitement]):
    """Récépissés of the CDP declarations (Loi 2008-12 art. 18), per organisation and processing: read and written
    by the register's service after it checked the organisation is one the caller keeps the register of."""

    model = RecepisseTraitement

    async def de_l_organisation(self, organisation_id: uuid.UUID) -> dict[str, RecepisseTraitement]:
        stmt = self.select().where(RecepisseTraitement.organisation_id == organisation_id)
        return {r.traitement: r for r in (await self.session.execute(stmt)).scalars()}

    async def du_traitement(self, organisation_id: uuid.UUID, traitement: str) -> RecepisseTraitement | None:
        stmt = self.select().where(RecepisseTraitement.organisation_id == organisation_id,
                                   RecepisseTraitement.traitement == traitement).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()
