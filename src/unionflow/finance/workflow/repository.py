"""Aggregates over approval requests and the finance audit trail, scoped to the caller's organisations."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, case, func, select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.repository import ScopedRepository
from unionflow.finance.service import MODULE
from unionflow.models import AuditLog, DecisionDemande, DemandeApprobation
from unionflow.models.approbation import GenreDemande, StatutDemande, TypeDecision
from unionflow.models.finance import StatutApprobation

# The finance kind of four-eyes requests (approbations/), withdrawn spelled as finance publishes it.
FINANCE = DemandeApprobation.genre == GenreDemande.FINANCE
STATUT = case((DemandeApprobation.statut == StatutDemande.RETIREE, StatutApprobation.ANNULEE.value),
              else_=DemandeApprobation.statut)


@dataclass(frozen=True)
class PeriodeWorkflow:
    organisation_id: uuid.UUID | None = None
    date_debut: date | None = None
    date_fin: date | None = None


@dataclass(frozen=True)
class AuditWorkflowFilters:
    periode: PeriodeWorkflow
    entite_type: str | None = None
    entite_id: str | None = None
    type_action: str | None = None


def _start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


class WorkflowRepository(ScopedRepository[DemandeApprobation]):
    """Statistics and audit trail of the finance workflow, over the organisations the caller staffs (the default
    scope)."""

    model = DemandeApprobation
    auth: AuthContext

    def _secondes(self, debut: Any, fin: Any) -> ColumnElement[Any]:
        """Seconds between two timestamps, computed by the database (each dialect its own way)."""
        if self.session.get_bind().dialect.name == "postgresql":
            return func.extract("epoch", fin - debut)
        return (func.julianday(fin) - func.julianday(debut)) * 86400

    def _where(self, periode: PeriodeWorkflow, column: Any, org_column: Any) -> list[ColumnElement[bool]]:
        clauses = [self.in_scope(org_column)]
        if periode.organisation_id:
            clauses.append(org_column == periode.organisation_id)
        if periode.date_debut:
            clauses.append(column >= _start(periode.date_debut))
        if periode.date_fin:
            clauses.append(column < _start(periode.date_fin + timedelta(days=1)))
        return clauses

    def _finance(self, periode: PeriodeWorkflow) -> list[ColumnElement[bool]]:
        return [*self._where(periode, DemandeApprobation.date_demande, DemandeApprobation.organisation_id), FINANCE]

    async def volumes(self, periode: PeriodeWorkflow) -> list[tuple[str, str, int, Decimal]]:
        stmt = (select(DemandeApprobation.nature, STATUT, func.count(),
                       func.coalesce(func.sum(DemandeApprobation.montant), 0))
                .where(*self._finance(periode))
                .group_by(DemandeApprobation.nature, STATUT)
                .order_by(DemandeApprobation.nature, STATUT))
        return [(r[0], r[1], int(r[2]), Decimal(r[3])) for r in (await self.session.execute(stmt)).all()]

    async def delai_moyen(self, periode: PeriodeWorkflow) -> Decimal | None:
        stmt = (select(func.avg(self._secondes(DemandeApprobation.date_demande, DemandeApprobation.date_decision)))
                .where(*self._finance(periode),
                       DemandeApprobation.statut.in_([StatutDemande.APPROUVEE, StatutDemande.REJETEE])))
        value = (await self.session.execute(stmt)).scalar_one()
        return None if value is None else Decimal(str(value))

    async def en_attente_avant(self, periode: PeriodeWorkflow, limite: datetime) -> int:
        stmt = (select(func.count()).select_from(DemandeApprobation)
                .where(*self._finance(periode),
                       DemandeApprobation.statut == StatutDemande.EN_ATTENTE,
                       DemandeApprobation.date_demande < limite))
        return int((await self.session.execute(stmt)).scalar_one())

    async def par_approbateur(self, periode: PeriodeWorkflow) -> list[tuple[str, int, int, Decimal, Decimal | None]]:
        oui = DecisionDemande.decision == TypeDecision.APPROUVEE
        stmt = (select(DecisionDemande.decideur,
                       func.sum(case((oui, 1), else_=0)), func.sum(case((oui, 0), else_=1)),
                       func.coalesce(func.sum(case((oui, DemandeApprobation.montant), else_=0)), 0),
                       func.avg(self._secondes(DemandeApprobation.date_demande, DecisionDemande.date_decision)))
                .join(DemandeApprobation, DemandeApprobation.id == DecisionDemande.demande_id)
                .where(*self._finance(periode))
                .group_by(DecisionDemande.decideur)
                .order_by(func.count().desc(), DecisionDemande.decideur))
        return [(r[0], int(r[1]), int(r[2]), Decimal(r[3]), None if r[4] is None else Decimal(str(r[4])))
                for r in (await self.session.execute(stmt)).all()]

    async def audit(self, filters: AuditWorkflowFilters, params: PageParams) -> tuple[list[AuditLog], int, bool]:
        stmt = select(AuditLog).where(AuditLog.module == MODULE,
                                      *self._where(filters.periode, AuditLog.date_heure, AuditLog.organisation_id))
        if filters.entite_type:
            stmt = stmt.where(AuditLog.entite_type == filters.entite_type)
        if filters.entite_id:
            stmt = stmt.where(AuditLog.entite_id == filters.entite_id)
        if filters.type_action:
            stmt = stmt.where(AuditLog.type_action == filters.type_action)
        return await paginate(self.session, stmt.order_by(AuditLog.date_heure.desc(), AuditLog.id), params)
