"""Session-free reads of dues (docs/architecture.md, "Read path").

The hot GET routes run prebuilt Core statements on a read connection (``core.db.ReadConnection``: no ORM
session, no BEGIN/COMMIT) and build their responses from rows. Statements are built once per visibility shape
(``CotisationRepository.scope_condition``, the same rule as the ORM path) and per combination of filters, with
named parameters; a request only binds values. Writes and the other reads keep ``CotisationService``.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Date, Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from unionflow.core.auth import AuthContext
from unionflow.core.cache import cached
from unionflow.core.errors import NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.core.read_paging import paginate_rows
from unionflow.core.visibility import SCOPE_MEMBRE, Shape, Visibility
from unionflow.cotisations.organisation_service import statistics
from unionflow.cotisations.repository import CotisationFilters, CotisationRepository, with_status
from unionflow.cotisations.schemas import (
    CotisationResponse,
    CotisationSummaryResponse,
    StatistiquesDetailResponse,
    StatistiquesResponse,
    StatistiquesTypeResponse,
)
from unionflow.cotisations.service import response_data, today_utc
from unionflow.cotisations.synthese_repository import StatistiquesCotisations, en_direct
from unionflow.models import Cotisation
from unionflow.paiements.encaissement.workflow import COTISATIONS_STATS, StatutCotisation

T = Cotisation.__table__
COLUMNS = tuple(c for c in T.c if c.name != "cle_generation")
NEWEST = (T.c.created_at.desc(), T.c.id.desc())
BY_DUE_DATE = (T.c.date_echeance.desc(), T.c.id.desc())
# The caller's own dues whatever their roles (mes-cotisations): not a visibility shape, a statement of its own.
OWN = Shape(membre=True)


@dataclass(frozen=True, slots=True)
class FilterKey:
    """Which filters a list uses (their values are parameters), and the status, which shapes the condition."""

    annee: bool = False
    mois: bool = False
    membre_id: bool = False
    statut: StatutCotisation | None = None
    type_cotisation: bool = False
    organisation_id: bool = False


def _filter_values(filters: CotisationFilters) -> tuple[FilterKey, dict[str, Any]]:
    values = {f"f_{name}": value for name, value in (
        ("annee", filters.annee), ("mois", filters.mois), ("membre_id", filters.membre_id),
        ("type_cotisation", filters.type_cotisation or None), ("organisation_id", filters.organisation_id))
        if value is not None}
    key = FilterKey(annee="f_annee" in values, mois="f_mois" in values, membre_id="f_membre_id" in values,
                    statut=filters.statut, type_cotisation="f_type_cotisation" in values,
                    organisation_id="f_organisation_id" in values)
    return key, values


@functools.cache
def _base(shape: Shape, key: FilterKey, own: bool) -> Select[Any]:
    stmt = select(*COLUMNS)
    if own:
        stmt = stmt.where(T.c.membre_id == bindparam(SCOPE_MEMBRE))
    else:
        stmt = stmt.where(CotisationRepository.scope_condition(shape))
    for flag, column in ((key.annee, T.c.annee), (key.mois, T.c.mois), (key.membre_id, T.c.membre_id),
                         (key.type_cotisation, T.c.type_cotisation),
                         (key.organisation_id, T.c.organisation_id)):
        if flag:
            stmt = stmt.where(column == bindparam(f"f_{column.name}"))
    if key.statut is not None:
        stmt = stmt.where(with_status(key.statut, bindparam("today", type_=Date)))
    return stmt


@functools.cache
def _by_id(shape: Shape) -> Select[Any]:
    return select(*COLUMNS).where(T.c.id == bindparam("id"), CotisationRepository.scope_condition(shape))


class CotisationLecture:
    def __init__(self, connection: AsyncConnection, auth: AuthContext) -> None:
        self.connection = connection
        self.auth = auth
        self.today = today_utc()
        seen = CotisationRepository.visibility(auth)
        self.shape, self.scope_values = seen.shape, seen.values

    async def get(self, cotisation_id: uuid.UUID) -> CotisationResponse:
        row = (await self.connection.execute(_by_id(self.shape), {**self.scope_values, "id": cotisation_id})).first()
        if row is None:
            raise NotFound("Cotisation introuvable")
        return CotisationResponse.model_validate(response_data(row, self.today))

    async def search(self, filters: CotisationFilters, params: PageParams) -> Page[CotisationSummaryResponse]:
        key, values = _filter_values(filters)
        if key.statut is not None:
            values["today"] = self.today
        return await self._page(_base(self.shape, key, False), {**self.scope_values, **values}, params, False)

    async def mine(self, params: PageParams) -> Page[CotisationSummaryResponse]:
        if self.auth.membre_id is None:
            return Page[CotisationSummaryResponse].build([], params, 0)
        base = _base(OWN, FilterKey(), True)
        return await self._page(base, {SCOPE_MEMBRE: self.auth.membre_id}, params, True)

    async def _page(self, base: Select[Any], values: dict[str, Any], params: PageParams,
                    by_due_date: bool) -> Page[CotisationSummaryResponse]:
        rows, total, exact = await paginate_rows(self.connection, base, BY_DUE_DATE if by_due_date else NEWEST,
                                                 T.c.id, values, params)
        return Page[CotisationSummaryResponse].build(
            [CotisationSummaryResponse.model_validate(response_data(r, self.today)) for r in rows], params, total,
            exact)

    # --- statistics (summary: cotisations/synthese_repository.py; cache: core/cache.py) ------------------------
    async def stats(self) -> StatistiquesResponse:
        if en_direct(self.shape):
            return await self._stats()
        return await cached(self.connection, f"{COTISATIONS_STATS}stats", self.auth, StatistiquesResponse,
                            self._stats)

    async def _stats(self) -> StatistiquesResponse:
        return StatistiquesResponse(**statistics(await self._statistiques_source().par_statut()))

    async def statistiques(self) -> StatistiquesDetailResponse:
        if en_direct(self.shape):
            return await self._statistiques()
        return await cached(self.connection, f"{COTISATIONS_STATS}statistiques", self.auth,
                            StatistiquesDetailResponse, self._statistiques)

    async def _statistiques(self) -> StatistiquesDetailResponse:
        source = self._statistiques_source()
        par_type = [StatistiquesTypeResponse(type_cotisation=r.type_cotisation, nombre=int(r.nombre),
                                             montant_du=Decimal(r.du), montant_collecte=Decimal(r.paye))
                    for r in await source.par_type()]
        return StatistiquesDetailResponse(**statistics(await source.par_statut()), par_type=par_type)

    def _statistiques_source(self) -> StatistiquesCotisations:
        return StatistiquesCotisations(self.connection, self._repo(), Visibility(self.shape, self.scope_values),
                                       self.today)

    def _repo(self) -> CotisationRepository:
        # Only its statement builders: the statements run on the read connection, not on a session.
        return CotisationRepository(None, self.auth, self.today)  # type: ignore[arg-type]


