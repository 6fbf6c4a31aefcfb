from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.audit.repository import AuditFilters, AuditRepository
from unionflow.audit.schemas import (
    AuditLogResponse,
    AuditSortField,
    AuditStatistiques,
    CreateAuditLogRequest,
    SortOrder,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import cached
from unionflow.core.errors import InvalidInput, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.roles import Role
from unionflow.core.visibility import organisations_as
from unionflow.models import AuditLog
from unionflow.models.audit import Severite


def parse_bound(value: str | None, field: str, *, end: bool) -> datetime | None:
    """``YYYY-MM-DD`` covers the whole day (dateFin inclusive); a date-time without offset is read as UTC."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        if len(text) <= 10 and "T" not in text:
            day = date.fromisoformat(text)
            start = datetime.combine(day, time.min, tzinfo=UTC)
            return start + timedelta(days=1) if end else start
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"{field}: date ISO 8601 attendue (AAAA-MM-JJ ou AAAA-MM-JJTHH:MM:SS±HH:MM)",
                           extra={"errors": [{"field": field, "message": "date ISO 8601 invalide",
                                              "type": "datetime_parsing"}]}) from None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment + timedelta(microseconds=1) if end else moment


def _code(value: str | None) -> str | None:
    return value.strip().upper() if value and value.strip() else None


class AuditService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = AuditRepository(session, auth)

    def _page(self, rows: list[AuditLog], params: PageParams, total: int, exact: bool) -> Page[AuditLogResponse]:
        return Page[AuditLogResponse].build([AuditLogResponse.model_validate(r) for r in rows], params, total, exact)

    async def journal(self, params: PageParams, sort: AuditSortField, order: SortOrder) -> Page[AuditLogResponse]:
        rows, total, exact = await self._search(AuditFilters(), params, sort, order)
        return self._page(rows, params, total, exact)

    async def _search(self, filters: AuditFilters, params: PageParams, sort: AuditSortField = AuditSortField.DATE_HEURE,
                      order: SortOrder = SortOrder.DESC) -> tuple[list[AuditLog], int, bool]:
        rows, total, exact = await self.repo.search(filters, params, sort, order)
        return rows, total, exact

    async def rechercher(self, params: PageParams, *, date_debut: str | None, date_fin: str | None,
                         ip_address: str | None, module: str | None, severite: Severite | None,
                         type_action: str | None, utilisateur: str | None) -> Page[AuditLogResponse]:
        depuis = parse_bound(date_debut, "dateDebut", end=False)
        avant = parse_bound(date_fin, "dateFin", end=True)
        if depuis is not None and avant is not None and depuis >= avant:
            raise RegleMetier("dateDebut doit précéder dateFin")
        filters = AuditFilters(depuis=depuis, avant=avant, ip_address=(ip_address or "").strip() or None,
                               module=_code(module), severite=severite.value if severite else None,
                               type_action=_code(type_action), utilisateur=(utilisateur or "").strip() or None)
        rows, total, exact = await self._search(filters, params)
        return self._page(rows, params, total, exact)

    async def creer(self, data: CreateAuditLogRequest) -> AuditLogResponse:
        organisation_id = self.auth.active_organisation_id
        if not self.auth.is_global and organisation_id is None:
            # An organisation administrator's entry belongs to an organisation, or they could not read it back.
            orgs = organisations_as(self.auth, {Role.ADMIN_ORGANISATION})
            if len(orgs) != 1:
                raise RegleMetier("Plusieurs organisations administrées: précisez X-Active-Organisation-Id")
            organisation_id = next(iter(orgs))
        entry = await audit.record(self.session, self.auth, action=data.type_action.upper(),
                                   module=data.module.upper(), entite_type=data.entite_type,
                                   entite_id=data.entite_id, description=data.description,
                                   severite=data.severite.value, organisation_id=organisation_id)
        entry.details = data.details
        await self.session.flush()
        return AuditLogResponse.model_validate(entry)

    async def statistiques(self) -> AuditStatistiques:
        return await cached(self.session, "audit.statistiques", self.auth, AuditStatistiques, self._statistiques)

    async def _statistiques(self) -> AuditStatistiques:
        now = datetime.now(UTC)
        first, last = await self.repo.bounds()
        par_module: Counter[str] = Counter()
        par_severite: Counter[str] = Counter()
        par_type_action: Counter[str] = Counter()
        for module, severite, type_action, n in await self.repo.breakdown():
            par_module[module] += n
            par_severite[severite] += n
            par_type_action[type_action] += n
        return AuditStatistiques(
            total=sum(par_module.values()),
            dernieres_24h=await self.repo.count(now - timedelta(hours=24)),
            derniers_7_jours=await self.repo.count(now - timedelta(days=7)),
            par_module=dict(sorted(par_module.items())), par_severite=dict(sorted(par_severite.items())),
            par_type_action=dict(sorted(par_type_action.items())),
            premiere_entree=first, derniere_entree=last, genere_le=now, calcule_le=now,
            perimetre="UNION" if self.auth.is_global else "ORGANISATIONS",
        )
