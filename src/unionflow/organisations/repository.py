from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, or_, select, true, update
from sqlalchemy.exc import IntegrityError

from unionflow.core.auth import AuthContext
from unionflow.core.numbering import sigle, sigles_candidats
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.core.visibility import EVERY, SCOPE_ORGANISATIONS, Shape, Visibility, scope_param
from unionflow.models import Document, Organisation
from unionflow.models.organisation import StatutOrganisation


@dataclass(frozen=True)
class OrganisationFilters:
    q: str | None = None
    type_organisation: str | None = None
    statut: str | None = None
    parent_id: uuid.UUID | None = None
    region: str | None = None
    pays: str | None = None


class OrganisationRepository(ScopedRepository[Organisation]):
    model = Organisation
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        """Active organisations form the union's directory; a suspended one stays visible to its members."""
        if auth is None or auth.is_global:
            return EVERY
        own = auth.member_organisations
        return Visibility(Shape(organisations=bool(own)), {SCOPE_ORGANISATIONS: sorted(own)})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        if shape.every:
            return true()
        active = Organisation.statut == StatutOrganisation.ACTIVE
        if shape.organisations:
            return or_(active, Organisation.id.in_(scope_param(SCOPE_ORGANISATIONS, values, expanding=True)))
        return active

    async def exists(self, organisation_id: uuid.UUID) -> bool:
        return await self.get(organisation_id) is not None

    async def logo_candidate(self, document_id: uuid.UUID, organisation_id: uuid.UUID) -> bool:
        stmt = select(Document.id).where(Document.id == document_id, Document.organisation_id == organisation_id,
                                         Document.type_mime.in_(("image/png", "image/jpeg")))
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def annuaire(self, limite: int) -> list[Organisation]:
        """The visible organisations, parents before children (by level, then name), at most ``limite``."""
        stmt = self.select().order_by(Organisation.parent_id.is_not(None), Organisation.nom).limit(limite)
        return list((await self.session.execute(stmt)).scalars())

    async def children(self, parent_id: uuid.UUID) -> list[Organisation]:
        stmt = self.select().where(Organisation.parent_id == parent_id).order_by(Organisation.nom)
        return list((await self.session.execute(stmt)).scalars())

    async def lock_organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        """The one place that locks an organisation row: money checked against an organisation's balance
        (payouts) is checked one transaction at a time."""
        return await self.get_for_update(organisation_id)

    async def noms(self, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
        """Names by id, unscoped: the caller shows the organisation of rows it already reaches (its events)."""
        if not ids:
            return {}
        rows = await self.session.execute(select(Organisation.id, Organisation.nom).where(Organisation.id.in_(ids)))
        return {i: n for i, n in rows.all()}

class SerieOrganisationRepository(SystemRepository[Organisation]):
    """The organisation's code in its receipt numbers ("séries par organisation"). Unscoped: asked by
    the payment write path, whose permission was checked on the payment."""

    model = Organisation

    async def code_serie(self, organisation_id: uuid.UUID) -> str | None:
        stmt = select(Organisation.code_serie).where(Organisation.id == organisation_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def attribuer_code_serie(self, organisation_id: uuid.UUID) -> str:
        """Give the organisation its code, once: its sigle, or the sigle followed by 2, 3… when another
        organisation already holds it. A concurrent twin (same organisation, or another one taking the same
        code) is settled by the unique constraint in a savepoint, then the code actually stored is read."""
        row = (await self.session.execute(select(Organisation.nom, Organisation.nom_court, Organisation.code_serie)
                                          .where(Organisation.id == organisation_id))).one()
        if row.code_serie:
            return str(row.code_serie)
        candidats = sigles_candidats(sigle(row.nom_court, row.nom))
        pris = set((await self.session.execute(select(Organisation.code_serie)
                                               .where(Organisation.code_serie.in_(candidats)))).scalars())
        for code in (c for c in candidats if c not in pris):
            try:
                async with self.session.begin_nested():
                    await self.session.execute(
                        update(Organisation).where(Organisation.id == organisation_id,
                                                   Organisation.code_serie.is_(None))
                        .values(code_serie=code).execution_options(synchronize_session=False))
            except IntegrityError:
                continue
            stored = await self.code_serie(organisation_id)
            if stored:
                return stored
        raise RuntimeError(f"aucun code de série libre pour l'organisation {organisation_id}")


class ArborescenceRepository(SystemRepository[Organisation]):
    """The tree of organisations (``parent_id``), unscoped: the federation's consolidation reads every descendant,
    suspended ones included (their money still counts), after its service checked the caller may read the root."""

    model = Organisation

    async def descendants(self, racine_id: uuid.UUID) -> list[Organisation]:
        """Every organisation under ``racine_id``, level by level (a few levels: union, federation, mutual); a
        cycle, which the service refuses when parents are set, would still stop here."""
        vus: set[uuid.UUID] = {racine_id}
        trouvees: list[Organisation] = []
        niveau = [racine_id]
        while niveau:
            stmt = self.select().where(Organisation.parent_id.in_(niveau)).order_by(Organisation.nom, Organisation.id)
            enfants = [o for o in (await self.session.execute(stmt)).scalars() if o.id not in vus]
            vus.update(o.id for o in enfants)
            trouvees += enfants
            niveau = [o.id for o in enfants]
        return trouvees

    async def ancetres(self, organisation_id: uuid.UUID) -> list[uuid.UUID]:
        """The parents of ``organisation_id`` up to the root, nearest first."""
        chaine: list[uuid.UUID] = []
        courant: uuid.UUID | None = organisation_id
        while courant is not None and courant not in chaine and len(chaine) < 20:
            parent = (await self.session.execute(select(Organisation.parent_id)
                                                 .where(Organisation.id == courant))).scalar_one_or_none()
            if parent is not None:
                chaine.append(parent)
            courant = parent
        return chaine
