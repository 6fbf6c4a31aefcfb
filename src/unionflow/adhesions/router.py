from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import Depends, Query, Request, Response
from fastapi.responses import JSONResponse

from unionflow.adhesions.schemas import (
    AdhesionPayeeResponse,
    AdhesionResponse,
    AdhesionStatsResponse,
    CreateAdhesionRequest,
    UpdateAdhesionRequest,
)
from unionflow.adhesions.service import AdhesionService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ADMIN, RS_APPROVE, RS_READ, RS_WRITE
from unionflow.core.routing import area_router
from unionflow.core.schemas import MontantPositif
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.paiement import MethodePaiement

router = area_router("/api/adhesions", "Adhésions")

_VISIBILITE = ("Visibilité: ADMIN/SUPER_ADMIN voient tout; les responsables d'une organisation (ADMIN_ORGANISATION, "
               "TRESORIER, ...) les adhésions de leurs organisations; chacun ses propres demandes. Une adhésion hors "
               "de ce périmètre répond 404.")
_PAGE = "Réponse: une page (`content`, `totalElements`, ...) d'AdhesionResponse, la plus récente d'abord. "


@router.get("", response_model=Page[AdhesionResponse], summary="Lister les adhésions",
            description=_PAGE + _VISIBILITE)
async def list_adhesions(session: SessionDep, auth: AuthContext = authorize(RS_READ),
                         params: PageParams = Depends(paging(20))) -> Page[AdhesionResponse]:
    return await AdhesionService(session, auth).lister(params)


@router.post("", status_code=201, response_model=AdhesionResponse, responses=problems(404, 409),
             summary="Créer une demande d'adhésion",
             description="Un membre demande à rejoindre une organisation active; les administrateurs de "
                         "l'organisation peuvent inscrire un autre membre. `fraisAdhesion` vaut 0 par défaut, "
                         "`devise` celle de l'organisation. 404 si le membre ou l'organisation n'existe pas; 409 si "
                         "une demande est déjà en cours ou si le membre est déjà actif dans l'organisation. "
                         "Extension (Loi 2008-12 art. 58): le membre reçoit dans sa boîte (notification IN_APP de "
                         "type INFORMATION) l'information sur le traitement de ses données par l'organisation, et "
                         "l'en-tête `Link` (rel=\"describedby\") de la réponse désigne cette notice "
                         "(`GET /api/donnees-personnelles/notices?organisationId=…`).")
async def create_adhesion(data: CreateAdhesionRequest, session: SessionDep, request: Request, response: Response,
                          auth: AuthContext = authorize(RS_WRITE)) -> AdhesionResponse:
    creee = await AdhesionService(session, auth).creer(data, request.app.state.settings)
    response.headers["Link"] = (f"</api/donnees-personnelles/notices?organisationId={creee.organisation_id}>; "
                                'rel="describedby"; title="Information sur vos données (Loi 2008-12 art. 58)"')
    return creee


@router.get("/en-attente", response_model=Page[AdhesionResponse], summary="Adhésions en attente de décision",
            description=_PAGE + _VISIBILITE)
async def pending_adhesions(session: SessionDep, auth: AuthContext = authorize(RS_READ),
                            params: PageParams = Depends(paging(20))) -> Page[AdhesionResponse]:
    return await AdhesionService(session, auth).lister(params, statut=StatutAdhesion.EN_ATTENTE)


@router.get("/membre/{membreId}", response_model=Page[AdhesionResponse], responses=problems(404),
            summary="Adhésions d'un membre", description=_PAGE + "404 si le membre n'existe pas ou n'est pas "
                                                                "visible (un membre ne voit que lui-même).")
async def adhesions_of_membre(membreId: uuid.UUID, session: SessionDep,
                              auth: AuthContext = authorize(RS_READ),
                              params: PageParams = Depends(paging(20))) -> Page[AdhesionResponse]:
    return await AdhesionService(session, auth).of_membre(membreId, params,
                                                          ecran="GET /api/adhesions/membre/{membreId}")


@router.get("/organisation/{organisationId}", response_model=Page[AdhesionResponse], responses=problems(404),
            summary="Adhésions à une organisation", description=_PAGE + _VISIBILITE)
async def adhesions_of_organisation(organisationId: uuid.UUID, session: SessionDep,
                                    auth: AuthContext = authorize(RS_READ),
                                    params: PageParams = Depends(paging(20))) -> Page[AdhesionResponse]:
    return await AdhesionService(session, auth).of_organisation(organisationId, params)


@router.get("/reference/{numeroReference}", response_model=AdhesionResponse, responses=problems(404),
            summary="Adhésion par numéro de référence")
async def adhesion_by_reference(numeroReference: str, session: SessionDep,
                                auth: AuthContext = authorize(RS_READ)) -> AdhesionResponse:
    return await AdhesionService(session, auth).by_reference(numeroReference)


@router.get("/stats", response_model=AdhesionStatsResponse, summary="Statistiques des adhésions",
            description="Comptes par statut, frais dus (adhésions approuvées ou payées), montants encaissés, taux "
                        "d'approbation, calculés sur les adhésions visibles par l'appelant.")
async def adhesion_stats(session: SessionDep, auth: AuthContext = authorize(RS_READ)) -> AdhesionStatsResponse:
    return await AdhesionService(session, auth).stats()


@router.get("/statut/{statut}", response_model=Page[AdhesionResponse],
            summary="Adhésions par statut", description=_PAGE + "Statut inconnu: 400.")
async def adhesions_by_status(statut: StatutAdhesion, session: SessionDep, auth: AuthContext = authorize(RS_READ),
                              params: PageParams = Depends(paging(20))) -> Page[AdhesionResponse]:
    return await AdhesionService(session, auth).lister(params, statut=statut)


@router.get("/{id}", response_model=AdhesionResponse, responses=problems(404), summary="Consulter une adhésion")
async def get_adhesion(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_READ)) -> AdhesionResponse:
    return await AdhesionService(session, auth).obtenir(id)


@router.put("/{id}", response_model=AdhesionResponse, responses=problems(404),
            summary="Modifier une demande d'adhésion",
            description="Seulement tant qu'elle est EN_ATTENTE (sinon 400 `invalid-state`). Frais et devise: "
                        "administrateurs de "
                        "l'organisation (sinon 403); le demandeur peut modifier ses observations.")
async def update_adhesion(id: uuid.UUID, data: UpdateAdhesionRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_WRITE)) -> AdhesionResponse:
    return await AdhesionService(session, auth).modifier(id, data)


@router.delete("/{id}", status_code=204, response_class=Response, responses=problems(404, 409),
               summary="Annuler une adhésion",
               description="Passe l'adhésion à ANNULEE (l'enregistrement est conservé, `dateAnnulation` renseignée). "
                           "409 si elle est payée ou a déjà reçu un paiement partiel. Répéter l'appel sur une "
                           "adhésion annulée ne change rien (204).")
async def delete_adhesion(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_ADMIN)) -> Response:
    await AdhesionService(session, auth).annuler(id)
    return Response(status_code=204)


@router.post("/{id}/approuver", response_model=AdhesionResponse, responses=problems(404),
             summary="Approuver une adhésion",
             description="EN_ATTENTE → APPROUVEE (sinon 400 `invalid-state` avec le statut actuel). Le membre "
                         "devient membre ACTIF "
                         "de l'organisation avec le rôle MEMBRE. `approuvePar` vaut par défaut le nom de l'appelant. "
                         "Réservé aux administrateurs de l'organisation de l'adhésion (403 sinon).")
async def approve_adhesion(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_APPROVE),
                           approuve_par: str | None = Query(None, alias="approuvePar", max_length=200),
                           ) -> AdhesionResponse:
    return await AdhesionService(session, auth).approuver(id, approuve_par)


@router.post("/{id}/paiement", response_model=AdhesionPayeeResponse, responses=problems(404, 409, 422, 502, 503),
             summary="Enregistrer un paiement des frais d'adhésion",
             description="Adhésion APPROUVEE d'une organisation ACTIVE seulement (400 `invalid-state` sinon). "
                         "`montantPaye` > 0 "
                         "et au plus le reste dû. Trésorerie de l'organisation (permission paiement.enregistrer): "
                         "paiement encaissé, partiels possibles, l'adhésion passe à PAYEE quand les frais sont "
                         "couverts, un reçu est émis (`recu`). Membre payant ses propres frais: rien n'est encaissé "
                         "— WAVE ouvre une session Wave (`declaration.waveLaunchUrl`; Wave non configuré ou "
                         "injoignable → 503, en erreur → 502), les autres méthodes "
                         "enregistrent une déclaration EN_ATTENTE que la trésorerie confirme "
                         "(POST /api/paiements/{id}/confirmer) ou rejette (`recu` nul, `declaration` renseignée). "
                         "Un paiement en attente à la fois: 409 si une déclaration ou une session Wave "
                         "réserve déjà ces frais. "
                         "L'adhésion d'un autre: 404 hors visibilité, 403 sans la permission. Avec "
                         "`Idempotency-Key`, un nouvel essai après une réponse perdue renvoie la réponse enregistrée "
                         "sans second paiement. Extension: `methodePaiement` WAVE_TRANSFERT (transfert Wave direct, "
                         "jamais de session Wave) exige `referencePaiement` au format d'un identifiant de "
                         "transaction Wave (400 `regle-metier` sinon; paramètres de requête: une règle entre eux "
                         "ne s'écrit pas dans un schéma).")
async def pay_adhesion(
    id: uuid.UUID,
    montant_paye: Annotated[MontantPositif, Query(alias="montantPaye")],
    session: SessionDep,
    request: Request,
    auth: AuthContext = authorize(RS_WRITE),
    methode_paiement: MethodePaiement = Query(MethodePaiement.ESPECES, alias="methodePaiement"),
    reference_paiement: str | None = Query(None, alias="referencePaiement", max_length=100),
    idem: IdempotentRequest = IDEMPOTENT,
) -> JSONResponse:
    return await idem.run(auth, lambda: AdhesionService(session, auth).payer(
        id, montant_paye, methode_paiement, reference_paiement, request.app.state.settings))


@router.post("/{id}/rejeter", response_model=AdhesionResponse, responses=problems(404),
             summary="Rejeter une adhésion",
             description="EN_ATTENTE → REJETEE (sinon 400 `invalid-state`). `motifRejet` obligatoire et non vide.")
async def reject_adhesion(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_APPROVE),
                          motif_rejet: str = Query(alias="motifRejet", max_length=1000)) -> AdhesionResponse:
    return await AdhesionService(session, auth).rejeter(id, motif_rejet)
