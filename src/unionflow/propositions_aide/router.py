from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import RS_PROPOSITION_AIDE, RS_PROPOSITION_AIDE_GESTION
from unionflow.core.routing import area_router
from unionflow.demandes_aide.schemas import DemandeAideResponse
from unionflow.models.proposition_aide import NatureProposition, StatutProposition
from unionflow.propositions_aide.repository import PropositionFilters
from unionflow.propositions_aide.schemas import (
    CloturerRequest,
    CreatePropositionAideRequest,
    LierRequest,
    PropositionAideResponse,
    UpdatePropositionAideRequest,
)
from unionflow.propositions_aide.service import PropositionAideService
from unionflow.types_reference.schemas import CODE, code_du_domaine

router = area_router("/api/propositions-aide", "Propositions d'aide")

BUREAU = "Réservé au bureau de l'organisation (ADMIN_ORGANISATION, PRESIDENT, SECRETAIRE, TRESORIER) et à ADMIN."


@router.post("", status_code=201, response_model=PropositionAideResponse, responses=problems(404),
             summary="Proposer une aide",
             description="Par le membre connecté, membre actif de l'organisation (400 `regle-metier` sinon, et pour "
                         "un compte sans fiche membre). `type`: mêmes types "
                         "que les demandes d'aide; `nature` FINANCIERE (montant obligatoire), MATERIELLE ou SERVICE. "
                         "Statut ACTIVE.")
async def create_proposition(data: CreatePropositionAideRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_PROPOSITION_AIDE)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).creer(data)


@router.get("", response_model=Page[PropositionAideResponse], summary="Lister les propositions d'aide",
            description="Un membre voit les siennes et les propositions ACTIVE de ses organisations; le bureau "
                        "toutes celles de son organisation; ADMIN tout. `mesPropositions=true`: les miennes. "
                        "Filtre `type`: code du domaine TYPE_AIDE des types de référence (table modifiable), "
                        "inconnu → 400 `regle-metier`.")
async def list_propositions(session: SessionDep, auth: AuthContext = authorize(RS_PROPOSITION_AIDE),
                            params: PageParams = Depends(paging(20)),
                            organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                            type_: str | None = Query(
                                None, alias="type", pattern=CODE, max_length=50,
                                description=code_du_domaine("TYPE_AIDE")),
                            nature: NatureProposition | None = None, statut: StatutProposition | None = None,
                            mes_propositions: bool = Query(False, alias="mesPropositions"),
                            ) -> Page[PropositionAideResponse]:
    filters = PropositionFilters(organisation_id=organisation_id, type=type_, nature=nature, statut=statut,
                                 mes_propositions=mes_propositions)
    return await PropositionAideService(session, auth).lister(filters, params)


@router.get("/demande/{demandeAideId}", response_model=list[PropositionAideResponse], responses=problems(404),
            summary="Propositions correspondant à une demande d'aide",
            description="Propositions ACTIVE, non expirées, de la même organisation et du même type, hors celles du "
                        "demandeur; les plus anciennes d'abord (50 au plus, total dans X-Total-Count). " + BUREAU)
async def propositions_for_demande(demandeAideId: uuid.UUID, response: Response, session: SessionDep,
                                   auth: AuthContext = authorize(RS_PROPOSITION_AIDE_GESTION),
                                   ) -> list[PropositionAideResponse]:
    rows = await PropositionAideService(session, auth).pour_demande(demandeAideId)
    set_total_header(response, len(rows))
    return rows


@router.get("/{id}", response_model=PropositionAideResponse, responses=problems(404),
            summary="Consulter une proposition d'aide")
async def get_proposition(id: uuid.UUID, session: SessionDep,
                          auth: AuthContext = authorize(RS_PROPOSITION_AIDE)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).obtenir(id)


@router.put("/{id}", response_model=PropositionAideResponse, responses=problems(404),
            summary="Modifier sa proposition", description="Par son auteur, tant qu'elle est ACTIVE.")
async def update_proposition(id: uuid.UUID, data: UpdatePropositionAideRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_PROPOSITION_AIDE)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).modifier(id, data)


@router.get("/{id}/correspondances", response_model=list[DemandeAideResponse], responses=problems(404),
            summary="Demandes d'aide ouvertes correspondant à la proposition",
            description="Demandes SOUMISE ou APPROUVEE de la même organisation et du même type, non couvertes par "
                        "une proposition réservée, hors celles de l'auteur; les plus urgentes puis les plus "
                        "anciennes d'abord (50 au plus, total dans X-Total-Count). Vide si la proposition n'est "
                        "pas ACTIVE. " + BUREAU)
async def matching_demandes(id: uuid.UUID, response: Response, session: SessionDep,
                            auth: AuthContext = authorize(RS_PROPOSITION_AIDE_GESTION)) -> list[DemandeAideResponse]:
    rows = await PropositionAideService(session, auth).correspondances(id)
    set_total_header(response, len(rows))
    return rows


@router.post("/{id}/lier", response_model=PropositionAideResponse, responses=problems(404, 409),
             summary="Lier la proposition à une demande d'aide (RESERVEE)",
             description="ACTIVE → RESERVEE. Même organisation et même type (400), demande ouverte (400), pas la "
                         "demande de l'auteur (400), une seule proposition réservée par demande (409). " + BUREAU)
async def link_proposition(id: uuid.UUID, data: LierRequest, session: SessionDep,
                           auth: AuthContext = authorize(RS_PROPOSITION_AIDE_GESTION)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).lier(id, data.demande_aide_id)


@router.post("/{id}/liberer", response_model=PropositionAideResponse, responses=problems(404),
             summary="Libérer une proposition réservée", description="RESERVEE → ACTIVE, lien retiré. Par "
                                                                     "l'auteur ou le bureau.")
async def release_proposition(id: uuid.UUID, session: SessionDep,
                              auth: AuthContext = authorize(RS_PROPOSITION_AIDE)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).liberer(id)


@router.post("/{id}/cloturer", response_model=PropositionAideResponse, responses=problems(404),
             summary="Clôturer une proposition",
             description="ACTIVE ou RESERVEE → CLOTUREE (aide remise, ou retrait); le lien éventuel est conservé. "
                         "Par l'auteur ou le bureau.")
async def close_proposition(id: uuid.UUID, session: SessionDep, data: CloturerRequest | None = None,
                            auth: AuthContext = authorize(RS_PROPOSITION_AIDE)) -> PropositionAideResponse:
    return await PropositionAideService(session, auth).cloturer(id, data.motif if data else None)
