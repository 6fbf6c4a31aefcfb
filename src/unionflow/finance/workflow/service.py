"""Workflow statistics of approval requests and the finance audit trail (read-only)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.errors import RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.finance.service import q
from unionflow.finance.workflow.repository import AuditWorkflowFilters, PeriodeWorkflow, WorkflowRepository
from unionflow.finance.workflow.schemas import (
    EvenementAudit,
    StatistiquesApprobateur,
    StatistiquesWorkflowResponse,
    Volume,
    VolumeParType,
)

ZERO = Decimal("0")


def _heures(secondes: Decimal | None) -> Decimal | None:
    return None if secondes is None else q(secondes / 3600)


def _check(periode: PeriodeWorkflow) -> None:
    if periode.date_debut and periode.date_fin and periode.date_fin < periode.date_debut:
        raise RegleMetier("dateFin: antérieure à dateDebut")


class WorkflowService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = WorkflowRepository(session, auth)

    async def statistiques(self, periode: PeriodeWorkflow, delai_alerte_jours: int) -> StatistiquesWorkflowResponse:
        _check(periode)
        volumes = await self.repo.volumes(periode)

        def volume(statut: str) -> Volume:
            rows = [v for v in volumes if v[1] == statut]
            return Volume(nombre=sum(r[2] for r in rows), montant=sum((r[3] for r in rows), ZERO))

        approuvees, rejetees = volume("APPROUVEE"), volume("REJETEE")
        decidees = approuvees.nombre + rejetees.nombre
        limite = datetime.now(UTC) - timedelta(days=delai_alerte_jours)
        return StatistiquesWorkflowResponse(
            organisation_id=periode.organisation_id, date_debut=periode.date_debut, date_fin=periode.date_fin,
            en_attente=volume("EN_ATTENTE"), approuvees=approuvees, rejetees=rejetees, annulees=volume("ANNULEE"),
            en_attente_depuis_plus_de=await self.repo.en_attente_avant(periode, limite),
            delai_moyen_heures=_heures(await self.repo.delai_moyen(periode)),
            taux_approbation=q(Decimal(approuvees.nombre * 100) / decidees) if decidees else None,
            par_type=[VolumeParType(type_objet=t, statut=s, nombre=n, montant=m) for t, s, n, m in volumes],
            par_approbateur=[StatistiquesApprobateur(approbateur=a, approbations=oui, rejets=non, montant_approuve=m,
                                                     delai_moyen_heures=_heures(d))
                             for a, oui, non, m, d in await self.repo.par_approbateur(periode)])

    async def audit(self, filters: AuditWorkflowFilters, params: PageParams) -> Page[EvenementAudit]:
        _check(filters.periode)
        rows, total, exact = await self.repo.audit(filters, params)
        return Page[EvenementAudit].build([EvenementAudit.model_validate(r) for r in rows], params, total, exact)
