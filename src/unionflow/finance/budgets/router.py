from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_FINANCE_DECIDE, RS_FINANCE_READ, RS_FINANCE_WRITE
from unionflow.core.routing import area_router
from unionflow.finance.budgets.repository import BudgetFilters
from unionflow.finance.budgets.schemas import (
    BudgetResponse,
    CreateBudgetRequest,
    DecisionBudgetRequest,
    ExecutionBudgetResponse,
    RejetBudgetRequest,
    StatutBudget,
    UpdateBudgetRequest,
)
from unionflow.finance.budgets.service import BudgetService

router = area_router("/api/finance/budgets", "Finance - Budgets")

LIGNES = ("Chaque ligne vise soit un compte du plan comptable de l'organisation (`compteId`), soit une catégorie "
          "(`prefixeCompte`: tous les comptes dont le numéro commence ainsi, ex. `66`); deux lignes qui se "
          "recoupent sont refusées (400) pour ne jamais compter un mouvement deux fois. `nature` vaut RECETTE "
          "par défaut pour la classe 7, DEPENSE sinon. Règles métier (400 `regle-metier`): une ligne porte "
          "`compteId` ou `prefixeCompte` (un seul des deux), lignes sans recoupement, compte du plan de "
          "l'organisation; `dateFin` ne précède pas `dateDebut`, période de deux ans au plus.")
DECIDEUR = ("Réservé au PRESIDENT et à l'ADMIN_ORGANISATION de l'organisation, jamais à la personne qui a soumis "
            "le budget (principe des quatre yeux, 403).")


@router.post("", status_code=201, response_model=BudgetResponse, responses=problems(404, 409),
             summary="Créer un budget annuel (BROUILLON)",
             description="Un budget par organisation et par année (409). Période par défaut: l'année civile. "
                         + LIGNES)
async def create_budget(data: CreateBudgetRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> BudgetResponse:
    return await BudgetService(session, auth).creer(data)


@router.get("", response_model=Page[BudgetResponse], summary="Lister les budgets",
            description="Budgets des organisations dont l'appelant fait partie du bureau (tout pour ADMIN).")
async def list_budgets(session: SessionDep, auth: AuthContext = authorize(RS_FINANCE_READ),
                       params: PageParams = Depends(paging(20)),
                       organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                       annee: int | None = Query(None, ge=2000, le=2100),
                       statut: StatutBudget | None = None) -> Page[BudgetResponse]:
    filters = BudgetFilters(organisation_id=organisation_id, annee=annee, statut=statut)
    return await BudgetService(session, auth).lister(filters, params)


@router.get("/{id}", response_model=BudgetResponse, responses=problems(404), summary="Consulter un budget")
async def get_budget(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_FINANCE_READ)) -> BudgetResponse:
    return await BudgetService(session, auth).obtenir(id)


@router.put("/{id}", response_model=BudgetResponse, responses=problems(404),
            summary="Modifier un budget en brouillon",
            description="Seul un BROUILLON se modifie (400 sinon); `lignes`, si fourni, remplace toutes les lignes. "
                        + LIGNES)
async def update_budget(id: uuid.UUID, data: UpdateBudgetRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> BudgetResponse:
    return await BudgetService(session, auth).modifier(id, data)


@router.delete("/{id}", status_code=204, responses=problems(404), summary="Supprimer un budget en brouillon")
async def delete_budget(id: uuid.UUID, session: SessionDep,
                        auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> Response:
    await BudgetService(session, auth).supprimer(id)
    return Response(status_code=204)


@router.post("/{id}/soumettre", response_model=BudgetResponse, responses=problems(404),
             summary="Soumettre un budget à l'approbation",
             description="BROUILLON → SOUMIS; au moins une ligne.")
async def submit_budget(id: uuid.UUID, session: SessionDep,
                        auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> BudgetResponse:
    return await BudgetService(session, auth).soumettre(id)


@router.post("/{id}/approuver", response_model=BudgetResponse, responses=problems(404),
             summary="Approuver un budget soumis", description="SOUMIS → APPROUVE. " + DECIDEUR)
async def approve_budget(id: uuid.UUID, session: SessionDep, data: DecisionBudgetRequest | None = None,
                         auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> BudgetResponse:
    return await BudgetService(session, auth).approuver(id, data.commentaire if data else None)


@router.post("/{id}/rejeter", response_model=BudgetResponse, responses=problems(404),
             summary="Rejeter un budget soumis",
             description="SOUMIS → BROUILLON, avec un commentaire obligatoire pour le trésorier. " + DECIDEUR)
async def reject_budget(id: uuid.UUID, data: RejetBudgetRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> BudgetResponse:
    return await BudgetService(session, auth).rejeter(id, data.commentaire)


@router.post("/{id}/cloturer", response_model=BudgetResponse, responses=problems(404),
             summary="Clôturer un budget approuvé", description="APPROUVE → CLOTURE (fin d'exercice); définitif.")
async def close_budget(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> BudgetResponse:
    return await BudgetService(session, auth).cloturer(id)


@router.get("/{id}/execution", response_model=ExecutionBudgetResponse, responses=problems(404),
            summary="Suivi d'exécution: prévu, réalisé, écart, taux de consommation",
            description="Réalisé = somme des lignes d'écritures comptables de l'organisation sur la période du "
                        "budget (agrégée en base par compte): débit − crédit pour une DEPENSE, crédit − débit pour "
                        "une RECETTE. Écart = prévu − réalisé; taux = réalisé / prévu × 100 (null si prévu = 0); "
                        "`depassement` signale une dépense au-delà du prévu. Toujours recalculé, jamais stocké.")
async def budget_execution(id: uuid.UUID, session: SessionDep,
                           auth: AuthContext = authorize(RS_FINANCE_READ)) -> ExecutionBudgetResponse:
    return await BudgetService(session, auth).execution(id)
