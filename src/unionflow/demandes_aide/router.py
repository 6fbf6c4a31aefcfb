from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import PageParams, paging, set_total_header
from unionflow.core.roles import RS_AIDE
from unionflow.core.routing import area_router
from unionflow.core.schemas import Montant
from unionflow.demandes_aide.repository import DemandeFilters
from unionflow.demandes_aide.schemas import (
    CreateDemandeAideRequest,
    DemandeAideResponse,
    UpdateDemandeAideRequest,
)
from unionflow.demandes_aide.service import DemandeAideService, parse_filters
from unionflow.models.demande_aide import StatutDemandeAide, UrgenceDemandeAide
from unionflow.types_reference.schemas import code_du_domaine

router = area_router("/api/demandes-aide", "Demandes d'aide")

VISIBILITE = ("Visibilité: ADMIN/SUPER_ADMIN toutes les demandes; le bureau d'une organisation (ADMIN_ORGANISATION, "
              "TRESORIER, PRESIDENT, SECRETAIRE...) celles de ses organisations; un membre les siennes. Une demande "
              "hors périmètre → 404.")
LISTE = "Tableau trié par date de soumission décroissante; total dans `X-Total-Count`. "
DECISION = ("Décision réservée à ADMIN, SUPER_ADMIN, à l'ADMIN_ORGANISATION et au PRESIDENT de l'organisation de la "
            "demande "
            "(contrôle du service: un USER/MEMBRE reçoit 403, comme le demandeur lui-même). Seule une demande SOUMISE "
            "se décide, sinon 400; la décision est définitive.")


@router.get("", response_model=list[DemandeAideResponse], summary="Lister les demandes d'aide",
            description=LISTE + VISIBILITE)
async def list_demandes(response: Response, session: SessionDep, auth: AuthContext = authorize(RS_AIDE),
                        params: PageParams = Depends(paging(20))) -> list[DemandeAideResponse]:
    rows, total = await DemandeAideService(session, auth).lister(DemandeFilters(), params)
    set_total_header(response, total)
    return rows


@router.post("", response_model=DemandeAideResponse, responses=problems(404),
             summary="Déposer une demande d'aide",
             description="Le demandeur est le membre connecté, qui doit être membre actif de `organisationId` (400 "
                         "`regle-metier`, comme un compte sans fiche membre; organisation inconnue → 404). Statut "
                         "initial SOUMISE; `urgence` par défaut NORMALE; devise celle de l'organisation.")
async def create_demande(data: CreateDemandeAideRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_AIDE)) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).creer(data)


@router.get("/mes", response_model=list[DemandeAideResponse], summary="Mes demandes d'aide",
            description=LISTE + "Uniquement les demandes du membre connecté, quel que soit son rôle.")
async def my_demandes(response: Response, session: SessionDep, auth: AuthContext = authorize(RS_AIDE),
                      params: PageParams = Depends(paging(50))) -> list[DemandeAideResponse]:
    rows, total = await DemandeAideService(session, auth).lister(DemandeFilters(only_mine=True), params)
    set_total_header(response, total)
    return rows


@router.get("/search", response_model=list[DemandeAideResponse], summary="Rechercher des demandes d'aide",
            description=LISTE + "Filtres exacts `statut` (SOUMISE, APPROUVEE, REJETEE), `type` (code du domaine "
                        "TYPE_AIDE des types de référence, actif ou désactivé), `urgence` (FAIBLE, NORMALE, ELEVEE, "
                        "CRITIQUE); valeur inconnue → 400 (`type`: `regle-metier`, table modifiable). " + VISIBILITE)
async def search_demandes(
    response: Response, session: SessionDep, auth: AuthContext = authorize(RS_AIDE),
    params: PageParams = Depends(paging(20)),
    statut: StatutDemandeAide | None = Query(None), type: str | None = Query(
        None, max_length=50, description=code_du_domaine("TYPE_AIDE")),
    urgence: UrgenceDemandeAide | None = Query(None),
) -> list[DemandeAideResponse]:
    rows, total = await DemandeAideService(session, auth).lister(parse_filters(statut, type, urgence), params)
    set_total_header(response, total)
    return rows


@router.get("/{id}", response_model=DemandeAideResponse, summary="Consulter une demande d'aide",
            description=VISIBILITE)
async def get_demande(id: uuid.UUID, session: SessionDep,
                      auth: AuthContext = authorize(RS_AIDE)) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).obtenir(id)


@router.put("/{id}", response_model=DemandeAideResponse, summary="Modifier une demande d'aide",
            description="Champs modifiables: type, titre, description, montantDemande, urgence. Seulement tant que la "
                        "demande est SOUMISE (sinon 400), par le demandeur ou le bureau de l'organisation (sinon 403).")
async def update_demande(id: uuid.UUID, data: UpdateDemandeAideRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_AIDE)) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).modifier(id, data)


@router.put("/{id}/approuver", response_model=DemandeAideResponse, summary="Approuver une demande d'aide",
            description="SOUMISE → APPROUVEE. `montantAccorde` optionnel (défaut: montant demandé; au plus le montant "
                        "demandé, sinon 400); `motif` optionnel. Enregistre le décideur et la date. " + DECISION)
async def approve_demande(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_AIDE),
                          motif: str | None = Query(None, max_length=1000),
                          montant_accorde: Montant | None = Query(None, alias="montantAccorde", ge=0, max_digits=18,
                                                                  decimal_places=2)) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).decider(id, StatutDemandeAide.APPROUVEE, motif, montant_accorde)


@router.put("/{id}/rejeter", response_model=DemandeAideResponse, summary="Rejeter une demande d'aide",
            description="SOUMISE → REJETEE, `motif` optionnel (recommandé: il est montré au demandeur). " + DECISION)
async def reject_demande(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_AIDE),
                         motif: str | None = Query(None, max_length=1000)) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).decider(id, StatutDemandeAide.REJETEE, motif)
