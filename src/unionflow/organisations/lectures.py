"""Session-free reads of organisations (docs/architecture.md, "Read path"): prebuilt Core statements per
visibility shape (``OrganisationRepository.scope_condition``, the rule of the ORM path) on a read connection,
responses built from rows."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.core.query import contient
from unionflow.core.read_paging import paginate_rows
from unionflow.core.visibility import Shape
from unionflow.models import MembreOrganisation, Organisation
from unionflow.models.membre import StatutAppartenance
from unionflow.organisations.repository import OrganisationFilters, OrganisationRepository
from unionflow.organisations.schemas import MonOrganisationResponse, OrganisationResponse

T = Organisation.__table__
M = MembreOrganisation.__table__
# The search key (models/texte.py) is searched, never shown.
COLUMNS = tuple(c for c in T.c if c.key != "recherche")
BY_NAME = (T.c.nom, T.c.id)
# Filters compared for equality, as named parameters ``f_<column>``.
EQUALITY = ("type_organisation", "statut", "parent_id", "region", "pays")


@functools.cache
def _by_id(shape: Shape) -> Select[Any]:
    return select(*COLUMNS).where(T.c.id == bindparam("id"), OrganisationRepository.scope_condition(shape))


@functools.cache
def _base(shape: Shape, used: frozenset[str]) -> Select[Any]:
    stmt = select(*COLUMNS).where(OrganisationRepository.scope_condition(shape))
    for name in EQUALITY:
        if name in used:
            stmt = stmt.where(T.c[name] == bindparam(f"f_{name}"))
    return stmt


MINE = (select(*COLUMNS, M.c.roles).select_from(T.join(M, M.c.organisation_id == T.c.id))
        .where(M.c.membre_id == bindparam("membre_id"), M.c.statut == StatutAppartenance.ACTIF).order_by(T.c.nom))


@dataclass
class OrganisationLecture:
    connection: AsyncConnection
    auth: AuthContext

    async def get(self, organisation_id: uuid.UUID) -> OrganisationResponse:
        seen = OrganisationRepository.visibility(self.auth)
        row = (await self.connection.execute(_by_id(seen.shape), {**seen.values, "id": organisation_id})).first()
        if row is None:
            raise NotFound("Organisation introuvable")
        return OrganisationResponse.model_validate(row)

    async def search(self, filters: OrganisationFilters, params: PageParams) -> Page[OrganisationResponse]:
        seen = OrganisationRepository.visibility(self.auth)
        values = {f"f_{name}": getattr(filters, name) for name in EQUALITY if getattr(filters, name)}
        base = _base(seen.shape, frozenset(name.removeprefix("f_") for name in values))
        if filters.q:
            # Free text: not prebuilt (its pattern is a bound value; the compiled form is still cached).
            base = base.where(contient(T.c.recherche, filters.q))
        rows, total, exact = await paginate_rows(self.connection, base, BY_NAME, T.c.id, {**seen.values, **values},
                                                 params, prebuilt=not filters.q)
        return Page[OrganisationResponse].build([OrganisationResponse.model_validate(r) for r in rows], params,
                                                total, exact)

    async def mine(self) -> list[MonOrganisationResponse]:
        if self.auth.membre_id is None:
            return []
        rows = (await self.connection.execute(MINE, {"membre_id": self.auth.membre_id})).all()
        return [MonOrganisationResponse.model_validate({**row._mapping, "roles": list(row.roles or [])})
                for row in rows]
