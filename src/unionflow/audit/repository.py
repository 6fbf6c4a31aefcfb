from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, func, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.audit.schemas import AuditSortField, SortOrder
from unionflow.core.auth import person_key
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.core.roles import Role
from unionflow.core.visibility import organisations_as
from unionflow.models import AuditLog

# Audit modules of money: what a treasurer reads of his organisation's trail.
MODULES_ARGENT = frozenset({"PAIEMENTS", "COTISATIONS", "VERSEMENTS", "WAVE", "COMPTABILITE", "FINANCE",
                            "DEMANDES_AIDE"})

SORT_COLUMNS = {
    AuditSortField.DATE_HEURE: AuditLog.date_heure,
    AuditSortField.MODULE: AuditLog.module,
    AuditSortField.SEVERITE: AuditLog.severite,
    AuditSortField.TYPE_ACTION: AuditLog.type_action,
    AuditSortField.UTILISATEUR: AuditLog.utilisateur,
    AuditSortField.IP_ADDRESS: AuditLog.ip_address,
}


@dataclass(frozen=True)
class AuditFilters:
    depuis: datetime | None = None
    avant: datetime | None = None  # exclusive
    ip_address: str | None = None
    module: str | None = None
    severite: str | None = None
    type_action: str | None = None
    utilisateur: str | None = None


class AuditRepository(ScopedRepository[AuditLog]):
    model = AuditLog

    def scope(self) -> ColumnElement[bool]:
        """The union's administrators read the whole trail; an organisation administrator and its commissaire aux
        comptes the entries recorded for their organisations; a treasurer the entries of his organisations'
        money (``MODULES_ARGENT``). Other staff roles do not hold the audit role sets. (The audit trail has no
        session-free read path, so the rule is written here once, as a condition.)"""
        if self.auth is None or self.auth.is_global:
            return true()
        whole = organisations_as(self.auth, {Role.ADMIN_ORGANISATION, Role.COMMISSAIRE_AUX_COMPTES})
        money = organisations_as(self.auth, {Role.TRESORIER}) - whole
        visible: list[ColumnElement[bool]] = []
        if whole:
            visible.append(AuditLog.organisation_id.in_(whole))
        if money:
            visible.append(and_(AuditLog.organisation_id.in_(money), AuditLog.module.in_(MODULES_ARGENT)))
        return or_(*visible) if visible else false()

    def _where(self, stmt: Select[Any], filters: AuditFilters) -> Select[Any]:
        stmt = stmt.where(self.scope())
        if filters.depuis is not None:
            stmt = stmt.where(AuditLog.date_heure >= filters.depuis)
        if filters.avant is not None:
            stmt = stmt.where(AuditLog.date_heure < filters.avant)
        for column, value in ((AuditLog.ip_address, filters.ip_address), (AuditLog.module, filters.module),
                              (AuditLog.severite, filters.severite), (AuditLog.type_action, filters.type_action),
                              (AuditLog.utilisateur, filters.utilisateur)):
            if value is not None:
                stmt = stmt.where(column == value)
        return stmt

    async def search(self, filters: AuditFilters, params: PageParams, sort: AuditSortField = AuditSortField.DATE_HEURE,
                     order: SortOrder = SortOrder.DESC) -> tuple[list[AuditLog], int, bool]:
        column = SORT_COLUMNS[sort]
        direction = (lambda c: c.asc()) if order is SortOrder.ASC else (lambda c: c.desc())
        keys = [direction(column)]
        if sort is not AuditSortField.DATE_HEURE:
            keys.append(direction(AuditLog.date_heure))
        keys.append(direction(AuditLog.id))
        stmt = self._where(select(AuditLog), filters).order_by(*keys)
        return await self.paginate(stmt, params)

    # Statistics: aggregates only (count / min / max grouped on indexed columns); no row is loaded.

    async def count(self, depuis: datetime | None = None) -> int:
        stmt = self._where(select(func.count()).select_from(AuditLog), AuditFilters(depuis=depuis))
        return int((await self.session.execute(stmt)).scalar_one())

    async def bounds(self) -> tuple[datetime | None, datetime | None]:
        stmt = self._where(select(func.min(AuditLog.date_heure), func.max(AuditLog.date_heure)), AuditFilters())
        first, last = (await self.session.execute(stmt)).one()
        return first, last

    async def breakdown(self) -> list[tuple[str, str, str, int]]:
        """One pass over the journal grouped by (module, severity, action type): the answer has one row per
        combination in use (a few hundred at most), from which every total and distribution is summed."""
        columns = (AuditLog.module, AuditLog.severite, AuditLog.type_action)
        stmt = self._where(select(*columns, func.count()).select_from(AuditLog), AuditFilters()).group_by(*columns)
        return [(str(m), str(s), str(t), int(n)) for m, s, t, n in (await self.session.execute(stmt)).all()]


class AuditSystemRepository(SystemRepository[AuditLog]):
    """Counts over the whole journal on the system's behalf (the monitoring evaluator): no row reaches a caller."""

    model = AuditLog

    async def count_since(self, since: datetime, *, severities: tuple[str, ...] = (),
                          actions: tuple[str, ...] = ()) -> int:
        stmt = select(func.count()).select_from(AuditLog).where(AuditLog.date_heure >= since)
        if severities:
            stmt = stmt.where(AuditLog.severite.in_(severities))
        if actions:
            stmt = stmt.where(AuditLog.type_action.in_(actions))
        return int((await self.session.execute(stmt)).scalar_one())


async def entrees_d_objets(session: AsyncSession, organisation_id: uuid.UUID, entite_type: str,
                           entite_ids: list[str]) -> list[AuditLog]:
    """The entries of one organisation about some of its records, for a document its bureau may read (a closing
    pack names who cancelled and who approved): the caller checked it reads that organisation's books."""
    if not entite_ids:
        return []
    stmt = (select(AuditLog).where(AuditLog.organisation_id == organisation_id, AuditLog.entite_type == entite_type,
                                   AuditLog.entite_id.in_(entite_ids))
            .order_by(AuditLog.date_heure, AuditLog.id))
    return list((await session.execute(stmt)).scalars())


async def personnes(session: AsyncSession, entite_type: str, entite_id: uuid.UUID,
                    actions: tuple[str, ...]) -> set[str]:
    """Person keys (issuer, subject) of whoever did one of ``actions`` (an action is matched by its start: a
    payout's ``VERSEMENT_`` confirmations) on one record, as its audit trail says: the people who recorded or
    confirmed money, excluded from approving its undoing. The caller checked it may act on that record."""
    stmt = select(AuditLog.utilisateur_emetteur, AuditLog.utilisateur_id, AuditLog.type_action).where(
        AuditLog.entite_type == entite_type, AuditLog.entite_id == str(entite_id),
        AuditLog.utilisateur_id.is_not(None))
    return {person_key(emetteur, sub) for emetteur, sub, action in (await session.execute(stmt)).all()
            if action.startswith(actions)}
