"""Reference data is shared by the whole union: every authenticated caller reads it, unscoped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select

from unionflow.core.pagination import PageParams
from unionflow.core.query import contains_ci
from unionflow.core.repository import SystemRepository
from unionflow.models import DemandeAide, Document, Evenement, PropositionAide, TypeReference

# Where each domain's codes are stored: an entry is "in use" when one of these columns holds its code.
UTILISATIONS: dict[str, list[Any]] = {
    "TYPE_EVENEMENT": [Evenement.type_evenement],
    "TYPE_DOCUMENT": [Document.type_document],
    "TYPE_AIDE": [DemandeAide.type_aide, PropositionAide.type_aide],
}


@dataclass(frozen=True)
class TypeFilters:
    domaine: str | None = None
    actif: bool | None = None
    q: str | None = None


class TypeReferenceRepository(SystemRepository[TypeReference]):
    """Unscoped on purpose: no reference entry is hidden from any caller (the route's role set decides who
    edits them)."""

    model = TypeReference

    async def search(self, filters: TypeFilters, params: PageParams) -> tuple[list[TypeReference], int, bool]:
        stmt: Any = select(TypeReference)
        if filters.domaine:
            stmt = stmt.where(TypeReference.domaine == filters.domaine)
        if filters.actif is not None:
            stmt = stmt.where(TypeReference.actif.is_(filters.actif))
        if filters.q:
            stmt = stmt.where(contains_ci([TypeReference.code, TypeReference.libelle], filters.q))
        stmt = stmt.order_by(TypeReference.domaine, TypeReference.ordre, TypeReference.code)
        return await self.paginate(stmt, params)

    async def domaines(self) -> list[tuple[str, int, int]]:
        stmt = (select(TypeReference.domaine, func.count(),
                       func.sum(case((TypeReference.actif.is_(True), 1), else_=0)))
                .group_by(TypeReference.domaine).order_by(TypeReference.domaine))
        return [(r[0], int(r[1]), int(r[2] or 0)) for r in (await self.session.execute(stmt)).all()]

    async def exists(self, domaine: str, code: str) -> bool:
        stmt = select(TypeReference.id).where(TypeReference.domaine == domaine, TypeReference.code == code)
        return (await self.session.execute(stmt)).first() is not None

    async def actif(self, domaine: str, code: str) -> bool | None:
        """True/False for an active/inactive entry, None when the domain has no such code."""
        stmt = select(TypeReference.actif).where(TypeReference.domaine == domaine, TypeReference.code == code)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def codes_actifs(self, domaine: str) -> list[str]:
        stmt = (select(TypeReference.code).where(TypeReference.domaine == domaine, TypeReference.actif.is_(True))
                .order_by(TypeReference.ordre, TypeReference.code))
        return list((await self.session.execute(stmt)).scalars())

    async def en_utilisation(self, entry: TypeReference) -> bool:
        for column in UTILISATIONS.get(entry.domaine, []):
            stmt = select(column).where(column == entry.code).limit(1)
            if (await self.session.execute(stmt)).first() is not None:
                return True
        return False

    async def delete(self, entry: TypeReference) -> None:
        await self.session.delete(entry)
