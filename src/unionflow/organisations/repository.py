from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import ColumnElement, or_, select, true

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contains_ci
from unionflow.core.repository import ScopedRepository
from unionflow.models import Document, MembreOrganisation, Organisation


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

    def scope(self) -> ColumnElement[bool]:
        """Active organisations form the union's directory; a suspended one stays visible to its members."""
        if self.auth.is_global:
            return true()
        own = self.auth.member_organisations
        return or_(Organisation.statut == "ACTIVE", Organisation.id.in_(own)) if own else (
            Organisation.statut == "ACTIVE")

    async def exists(self, organisation_id: uuid.UUID) -> bool:
        return await self.get(organisation_id) is not None

    async def search(self, filters: OrganisationFilters, params: PageParams) -> tuple[list[Organisation], int, bool]:
        stmt = self.select()
        if filters.q:
            stmt = stmt.where(contains_ci([Organisation.nom, Organisation.nom_court, Organisation.ville], filters.q))
        if filters.type_organisation:
            stmt = stmt.where(Organisation.type_organisation == filters.type_organisation)
        if filters.statut:
            stmt = stmt.where(Organisation.statut == filters.statut)
        if filters.parent_id:
            stmt = stmt.where(Organisation.parent_id == filters.parent_id)
        if filters.region:
            stmt = stmt.where(Organisation.region == filters.region)
        if filters.pays:
            stmt = stmt.where(Organisation.pays == filters.pays)
        return await self.paginate(stmt.order_by(Organisation.nom, Organisation.id), params)

    async def logo_candidate(self, document_id: uuid.UUID, organisation_id: uuid.UUID) -> bool:
        stmt = select(Document.id).where(Document.id == document_id, Document.organisation_id == organisation_id,
                                         Document.type_mime.in_(("image/png", "image/jpeg")))
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def children(self, parent_id: uuid.UUID) -> list[Organisation]:
        stmt = self.select().where(Organisation.parent_id == parent_id).order_by(Organisation.nom)
        return list((await self.session.execute(stmt)).scalars())

    async def of_member(self, membre_id: uuid.UUID) -> list[tuple[Organisation, list[str]]]:
        stmt = (
            select(Organisation, MembreOrganisation.roles)
            .join(MembreOrganisation, MembreOrganisation.organisation_id == Organisation.id)
            .where(MembreOrganisation.membre_id == membre_id, MembreOrganisation.statut == "ACTIF")
            .order_by(Organisation.nom)
        )
        return [(org, list(roles or [])) for org, roles in (await self.session.execute(stmt)).all()]
