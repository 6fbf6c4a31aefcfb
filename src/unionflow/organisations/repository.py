from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, or_, select, true

from unionflow.core.auth import AuthContext
from unionflow.core.repository import ScopedRepository
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
