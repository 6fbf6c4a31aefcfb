from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Any

from fastapi import Depends, Query
from pydantic import BeforeValidator

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_LCB, RS_LCB_LECTURE
from unionflow.core.routing import area_router
from unionflow.lcbft.schemas import (
    AlerteResponse,
    NonTraiteesResponse,
    ParametresLcbFtRequest,
    ParametresLcbFtResponse,
    TraiterAlerteRequest,
    TypeAlerte,
)
from unionflow.lcbft.service import LcbFtService, parse_filters

router = area_router("/api/alertes-lcb-ft", "Alertes LCB-FT")
parametres_router = area_router("/api/parametres-lcb-ft", "Paramètres LCB-FT")


def _jour_ou_instant(value: Any) -> Any:
    """AAAA-MM-JJ is a whole day, anything longer an instant (``T00:00:00Z`` included); pydantic's union would
    read a midnight instant as a day."""
    if isinstance(value, str):
        text = value.strip()
        try:
            return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            return value
    return value


JOUR_OU_INSTANT = BeforeValidator(_jour_ou_instant)
PERIMETRE = "SUPER_ADMIN voit toutes les organisations, un ADMIN_ORGANISATION seulement les siennes."


@router.get("", response_model=Page[AlerteResponse], summary="Lister les alertes LCB-FT",
            description="Page d'alertes, les plus récentes d'abord. `dateDebut`/`dateFin`: jour AAAA-MM-JJ (inclus) ou "
                        "instant ISO 8601 (UTC sans décalage), sur la date de l'alerte; `typeAlerte`: SEUIL_OPERATION, "
                        "CUMUL_PERIODE, ESPECES_ELEVEES; valeurs invalides → 400. Règle métier (400 `regle-metier`): "
                        "`dateFin` doit suivre `dateDebut`. " + PERIMETRE)
async def list_alertes(
    session: SessionDep,
    auth: AuthContext = authorize(RS_LCB_LECTURE),
    params: PageParams = Depends(paging(20)),
    date_debut: Annotated[date | datetime | None, Query(alias="dateDebut"), JOUR_OU_INSTANT] = None,
    date_fin: Annotated[date | datetime | None, Query(alias="dateFin"), JOUR_OU_INSTANT] = None,
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    type_alerte: TypeAlerte | None = Query(None, alias="typeAlerte"),
    traitee: bool | None = None,
) -> Page[AlerteResponse]:
    filters = parse_filters(date_debut, date_fin, organisation_id, type_alerte, traitee)
    return await LcbFtService(session, auth).lister(filters, params)


@router.get("/stats/non-traitees", response_model=NonTraiteesResponse, summary="Nombre d'alertes non traitées",
            description="`{organisationId, nonTraitees}` sur le périmètre de l'appelant, éventuellement restreint à "
                        "`organisationId` (0 pour une organisation hors périmètre). " + PERIMETRE)
async def count_non_traitees(session: SessionDep, auth: AuthContext = authorize(RS_LCB_LECTURE),
                             organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                             ) -> NonTraiteesResponse:
    filters = parse_filters(None, None, organisation_id, None, None)
    return await LcbFtService(session, auth).non_traitees(filters.organisation_id)


@router.get("/{id}", response_model=AlerteResponse, summary="Consulter une alerte",
            description="Identifiant inconnu, mal formé ou hors périmètre → 404. " + PERIMETRE)
async def get_alerte(id: str, session: SessionDep, auth: AuthContext = authorize(RS_LCB_LECTURE)) -> AlerteResponse:
    return await LcbFtService(session, auth).obtenir(id)


@router.post("/{id}/traiter", response_model=AlerteResponse, responses=problems(409),
             summary="Marquer une alerte comme traitée",
             description="Corps: `commentaire` (obligatoire) et `decision` (SANS_SUITE par défaut, ou "
                         "DECLARATION_SOUPCON); autre clé → 400. Enregistre qui, quand, le commentaire et la "
                         "décision. Une alerte déjà traitée → 409 (la première décision fait foi).")
async def traiter_alerte(id: str, session: SessionDep, body: TraiterAlerteRequest,
                         auth: AuthContext = authorize(RS_LCB)) -> AlerteResponse:
    return await LcbFtService(session, auth).traiter(id, body)


@parametres_router.get("", response_model=list[ParametresLcbFtResponse],
                       summary="Seuils LCB-FT personnalisés",
                       description="Organisations ayant leurs propres seuils (les autres appliquent les valeurs de "
                                   "configuration `lcbft.*`). " + PERIMETRE)
async def list_parametres(session: SessionDep,
                          auth: AuthContext = authorize(RS_LCB)) -> list[ParametresLcbFtResponse]:
    return await LcbFtService(session, auth).list_parametres()


@parametres_router.get("/organisation/{organisationId}", response_model=ParametresLcbFtResponse,
                       summary="Seuils LCB-FT effectifs d'une organisation",
                       description="Seuils propres de l'organisation ou, à défaut (`personnalise: false`), ceux de la "
                                   "configuration. " + PERIMETRE)
async def get_parametres(organisationId: uuid.UUID, session: SessionDep,
                         auth: AuthContext = authorize(RS_LCB)) -> ParametresLcbFtResponse:
    return await LcbFtService(session, auth).parametres(organisationId)


@parametres_router.put("/organisation/{organisationId}", response_model=ParametresLcbFtResponse,
                       summary="Définir les seuils LCB-FT d'une organisation",
                       description="Crée ou remplace les seuils: `seuilOperation` (opération unique), `seuilCumul` sur "
                                   "`periodeCumulJours` jours (cumul par membre), `seuilEspeces` (versement en "
                                   "espèces), en XOF. Seuils inclusifs. Journalisé. " + PERIMETRE)
async def put_parametres(organisationId: uuid.UUID, data: ParametresLcbFtRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_LCB)) -> ParametresLcbFtResponse:
    return await LcbFtService(session, auth).modifier_parametres(organisationId, data)
