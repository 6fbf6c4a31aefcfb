"""Wave statements and their reconciliation (extension; docs/decisions.md): the routes under /api/wave/releves.

The reconciliation matches Wave's lines to our payments (paiements' rows) and payouts, so it lives with the money
(paiements/), beside the Wave tables it reads through wave's repositories."""

from __future__ import annotations

import uuid

from fastapi import Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.errors import PayloadTooLarge
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.models.wave import StatutLigneReleveWave
from unionflow.paiements.rapprochement_wave import operations
from unionflow.paiements.rapprochement_wave.service import RapprochementWaveService
from unionflow.saisies.schemas import DemandeEcritureResponse
from unionflow.wave.rapprochement_schemas import (
    ComptabiliserLigneWaveRequest,
    ImporterReleveWaveRequest,
    LigneReleveWaveResponse,
    RapprochementWaveResponse,
    ReleveWaveDetailResponse,
    ReleveWaveResponse,
)

router = area_router("/api/wave", "Wave Mobile Money")

MAX_OCTETS_RELEVE = 10 * 1024 * 1024
ROLES_RELEVE = ("Trésorerie ou administration de l'organisation (permission `wave.rapprocher`); lecture aussi "
                "pour le président et le commissaire aux comptes.")


@router.post("/releves", status_code=201, response_model=ReleveWaveResponse, responses=problems(404, 409, 413),
             summary="Importer le relevé Wave exporté du portail Wave Business (CSV)",
             description="Extension. CSV (`,` ou `;`, UTF-8 ou Windows-1252), première ligne d'en-têtes: noms de "
                         "l'API Wave ou libellés français (transaction_id/Identifiant de transaction, "
                         "timestamp/Horodatage, transaction_type/Type de transaction, amount/Montant, fee/Frais, "
                         "balance/Solde, currency/Devise, counterparty_name, counterparty_mobile, "
                         "client_reference/Référence client, checkout_api_session_id/Identifiant de session API, "
                         "is_reversal). `amount` = effet net sur le compte (signé), `fee` = frais Wave. Le même "
                         "fichier n'est importé qu'une fois (409 avec `releveId`); une ligne déjà importée par un "
                         "autre relevé est ignorée. Rien n'est comptabilisé ici: voir `/releves/{id}/rapprocher`. "
                         + ROLES_RELEVE)
async def importer_releve(request: Request, session: SessionDep, fichier: UploadFile = File(...),
                          organisation_id: uuid.UUID = Form(..., alias="organisationId"),
                          auth: AuthContext = authorize(RS_TRESORERIE)) -> ReleveWaveResponse:
    contenu = await fichier.read(MAX_OCTETS_RELEVE + 1)
    if len(contenu) > MAX_OCTETS_RELEVE:
        raise PayloadTooLarge(f"Relevé limité à {MAX_OCTETS_RELEVE // (1024 * 1024)} Mo")
    service = RapprochementWaveService(session, auth, request.app.state.settings)
    return await service.importer_csv(organisation_id, fichier.filename, contenu)


@router.post("/releves/depuis-wave", status_code=201, response_model=ReleveWaveResponse,
             responses=problems(404, 409, 502, 503),
             summary="Importer le relevé d'un jour depuis l'API Wave (GET /v1/transactions)",
             description="Extension. Lit toutes les pages du jour (curseur `after`) avec la clé du compte Wave "
                         "de l'organisation, ou celle du compte partagé de l'union (seules les lignes de "
                         "l'organisation et les lignes inconnues sont gardées). " + ROLES_RELEVE)
async def importer_releve_wave(data: ImporterReleveWaveRequest, request: Request, session: SessionDep,
                               auth: AuthContext = authorize(RS_TRESORERIE)) -> ReleveWaveResponse:
    return await RapprochementWaveService(session, auth, request.app.state.settings).importer_api(data)


@router.get("/releves", response_model=Page[ReleveWaveResponse], summary="Relevés Wave importés",
            description="Extension. Plus récents d'abord. " + ROLES_RELEVE)
async def list_releves(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                       params: PageParams = Depends(paging(20)),
                       organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                       ) -> Page[ReleveWaveResponse]:
    return await RapprochementWaveService(session, auth).lister(params, organisation_id)


@router.get("/releves/{id}", response_model=ReleveWaveDetailResponse, responses=problems(404),
            summary="Consulter un relevé Wave et son dernier rapprochement", description="Extension. " + ROLES_RELEVE)
async def get_releve(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> ReleveWaveDetailResponse:
    return await RapprochementWaveService(session, auth).obtenir(id)


@router.get("/releves/{id}/lignes", response_model=Page[LigneReleveWaveResponse], responses=problems(404),
            summary="Lignes d'un relevé Wave", description="Extension. Filtre `statut`: A_RAPPROCHER, RAPPROCHEE, "
                                                          "MONTANT_DIFFERENT, INCONNUE. " + ROLES_RELEVE)
async def list_lignes_releve(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                             params: PageParams = Depends(paging(50)),
                             statut: StatutLigneReleveWave | None = Query(None),
                             ) -> Page[LigneReleveWaveResponse]:
    return await RapprochementWaveService(session, auth).lignes(id, params, statut)


@router.post("/releves/{id}/rapprocher", response_model=RapprochementWaveResponse, responses=problems(404, 409),
             summary="Rapprocher un relevé Wave et comptabiliser les frais Wave",
             description="Extension. Rapproche chaque ligne de nos paiements et versements Wave (identifiant de "
                         "transaction, session de paiement, puis référence client), comptabilise les frais des "
                         "lignes rapprochées (débit 6317 Frais sur instruments monnaie électronique, crédit le "
                         "compte Wave; une fois par transaction Wave, quel que soit le nombre de rapprochements), "
                         "liste "
                         "les lignes inconnues et nos opérations de la période absentes du relevé, et met le solde "
                         "comptable du compte Wave à côté du solde Wave (écart; aucun écart sur le compte partagé "
                         "de l'union). Idempotency-Key: déplace de l'argent dans les comptes. " + ROLES_RELEVE)
async def rapprocher_releve(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE),
                            idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.rapprocher(session, auth, idem, id))


@router.post("/releves/{id}/lignes/{ligneId}/comptabiliser", status_code=202, response_model=DemandeEcritureResponse,
             responses=problems(404, 409),
             summary="Comptabiliser une ligne Wave inconnue (demande à quatre yeux)",
             description="Extension. Une ligne INCONNUE (aucun paiement ni versement à nous) est passée à un compte "
                         "choisi (hors classe 5): trésorerie Wave pour le montant net, frais Wave au 6317, "
                         "contrepartie pour le montant brut, pièce `WAVE-<transaction>`. L'écriture touche une "
                         "trésorerie: c'est une demande (202) qu'une seconde personne approuve "
                         "(`/api/comptabilite/demandes-ecritures/{id}/approuver`); une fois passée, la ligne est "
                         "rapprochée au prochain rapprochement. Une transaction déjà comptabilisée: 409. "
                         + ROLES_RELEVE)
async def comptabiliser_ligne(id: uuid.UUID, ligneId: uuid.UUID, data: ComptabiliserLigneWaveRequest,
                              session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE),
                              idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.comptabiliser_ligne(session, auth, idem, id, ligneId, data))
