from __future__ import annotations

import uuid
from datetime import date

from fastapi import Depends, Query

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_FINANCE_READ
from unionflow.core.routing import area_router
from unionflow.finance.workflow.repository import AuditWorkflowFilters, PeriodeWorkflow
from unionflow.finance.workflow.schemas import EvenementAudit, StatistiquesWorkflowResponse
from unionflow.finance.workflow.service import WorkflowService

router = area_router("/api/finance/workflow", "Finance - Workflow")

PERIODE = ("Périmètre: organisations du bureau de l'appelant (toutes pour ADMIN), `organisationId` pour n'en voir "
           "qu'une (une organisation hors périmètre donne des zéros). `dateDebut`/`dateFin` inclusives; règle "
           "métier (400 `regle-metier`): `dateFin` ne précède pas `dateDebut`.")


def periode(organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
            date_debut: date | None = Query(None, alias="dateDebut"),
            date_fin: date | None = Query(None, alias="dateFin")) -> PeriodeWorkflow:
    return PeriodeWorkflow(organisation_id=organisation_id, date_debut=date_debut, date_fin=date_fin)


@router.get("/statistiques", response_model=StatistiquesWorkflowResponse,
            summary="Statistiques des approbations",
            description="Sur les demandes d'approbation déposées dans la période: nombre et montant par statut "
                        "et par type d'objet, demandes en attente depuis plus de `delaiAlerteJours` (7 par défaut), "
                        "délai moyen demande → décision finale (heures), taux d'approbation, et par approbateur: "
                        "oui, non, montant approuvé, délai moyen. Tout est agrégé en base. " + PERIODE)
async def statistiques(session: ReplicaSession, auth: AuthContext = authorize(RS_FINANCE_READ),
                       filtre: PeriodeWorkflow = Depends(periode),
                       delai_alerte_jours: int = Query(7, alias="delaiAlerteJours", ge=1, le=365),
                       ) -> StatistiquesWorkflowResponse:
    return await WorkflowService(session, auth).statistiques(filtre, delai_alerte_jours)


@router.get("/audit", response_model=Page[EvenementAudit], summary="Piste d'audit des finances",
            description="Entrées du journal d'audit du module FINANCE (budgets et approbations: création, "
                        "soumission, décisions, annulations, clôture), plus récentes d'abord. Filtres `entiteType` "
                        "(Budget, Approbation), `entiteId`, `typeAction`. " + PERIODE)
async def audit_trail(session: SessionDep, auth: AuthContext = authorize(RS_FINANCE_READ),
                      params: PageParams = Depends(paging(50)), filtre: PeriodeWorkflow = Depends(periode),
                      entite_type: str | None = Query(None, alias="entiteType", max_length=50),
                      entite_id: str | None = Query(None, alias="entiteId", max_length=64),
                      type_action: str | None = Query(None, alias="typeAction", max_length=50),
                      ) -> Page[EvenementAudit]:
    filters = AuditWorkflowFilters(periode=filtre, entite_type=entite_type, entite_id=entite_id,
                                   type_action=type_action)
    return await WorkflowService(session, auth).audit(filters, params)
