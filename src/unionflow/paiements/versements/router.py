from __future__ import annotations

import uuid

from fastapi import Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ, RS_VERSEMENT_CONFIRMER
from unionflow.core.routing import area_router
from unionflow.documents.router import storage_of
from unionflow.models.versement import ModeVersement, ObjetVersement, StatutVersement
from unionflow.paiements.versements import operations
from unionflow.paiements.versements.bon_service import bon_de_decaissement
from unionflow.paiements.versements.repository import VersementFilters
from unionflow.paiements.versements.schemas import (
    ConfirmerVersementRequest,
    CreateVersementRequest,
    VersementResponse,
)
from unionflow.paiements.versements.service import VersementService

router = area_router("/api/versements", "Versements")


@router.get("", response_model=Page[VersementResponse], summary="Lister les versements",
            description="Versements des organisations administrées par l'appelant (tout pour SUPER_ADMIN/ADMIN).")
async def list_versements(session: SessionDep, request: Request, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                          params: PageParams = Depends(paging(20)),
                          organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                          statut: StatutVersement | None = None, mode: ModeVersement | None = None,
                          objet_type: ObjetVersement | None = Query(None, alias="objetType"),
                          ) -> Page[VersementResponse]:
    filters = VersementFilters(organisation_id=organisation_id, statut=statut, mode=mode, objet_type=objet_type)
    return await VersementService(session, auth, request.app.state.settings).lister(filters, params)


@router.post("", status_code=201, response_model=VersementResponse, responses=problems(404, 422),
             summary="Préparer un versement (Wave ou manuel)",
             description="Statut EN_COURS; rien n'est envoyé avant la confirmation. La clé d'idempotence Wave est "
                         "enregistrée dès maintenant. Pour COTISATIONS/ADHESIONS, le montant ne peut dépasser ce "
                         "qui a été encaissé à ce titre et pas encore versé (400). AIDE: `objetId` = la demande "
                         "d'aide, qui doit être APPROUVEE; les versements EN_COURS ou REUSSI pour elle ne dépassent "
                         "jamais le montant accordé (400). 400 `regle-metier`: un versement Wave exige "
                         "`beneficiaireTelephone` et un montant entier en XOF.")
async def create_versement(data: CreateVersementRequest, session: SessionDep, request: Request,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.creer(session, auth, request.app.state.settings, idem, data))


@router.get("/{id}", response_model=VersementResponse, responses=problems(404), summary="Consulter un versement")
async def get_versement(id: uuid.UUID, session: SessionDep, request: Request,
                        auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> VersementResponse:
    return await VersementService(session, auth, request.app.state.settings).obtenir(id)


@router.get("/{id}/bon", response_class=Response, responses={
    200: {"content": {"application/pdf": {}}, "description": "Bon de décaissement PDF"}, **problems(404)},
            summary="Télécharger le bon de décaissement PDF",
            description="Extension, hors spécification. La pièce à signer de chaque sortie d'argent (A5): "
                        "organisation, numéro du versement, date (d'exécution, sinon de préparation), bénéficiaire, "
                        "montant en chiffres et en lettres, objet et motif, trésorerie de sortie, qui l'a préparé, "
                        "qui l'a approuvé (demande d'approbation au-delà du seuil) et qui l'a confirmé, et les "
                        "lignes de signature du trésorier, de l'approbateur et du bénéficiaire (« Reçu la somme "
                        "de … »). Un versement pas encore exécuté, échoué ou annulé porte la mention de son "
                        "statut. Même visibilité que la lecture du versement (commissaire aux comptes compris); "
                        "versement d'une autre organisation: 404.")
async def download_bon(id: uuid.UUID, session: SessionDep, request: Request,
                       auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Response:
    numero, pdf = await bon_de_decaissement(session, auth, request.app.state.settings, id, storage_of(request))
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="bon-{numero}.pdf"'})


@router.post("/{id}/confirmer", response_model=VersementResponse, responses=problems(404, 422, 502, 503),
             summary="Confirmer (envoyer) un versement",
             description="Par une autre personne que le créateur (sauf SUPER_ADMIN/ADMIN): trésorier, président ou "
                         "administrateur de l'organisation (permission versement.confirmer). Wave: payout envoyé avec "
                         "la clé stockée (un nouvel essai ne paie jamais deux fois); REUSSI, ECHOUE ou EN_COURS "
                         "selon Wave; un nouvel appel relit le payout. Manuel: referenceExterne requis → REUSSI. "
                         "À partir de `finance.approbation.seuil_versement`, la demande d'approbation ouverte à la "
                         "création (Finance - Approvals) doit être APPROUVEE (400 sinon). Un versement REUSSI est "
                         "comptabilisé (charge de son objet 658x ou `compteCharge` / compte de sa trésorerie, 521 "
                         "ou le compte Wave — 5521, ou 5215 s'il est déjà ouvert — par défaut) et passé aux seuils "
                         "LCB-FT dans la même transaction. Extension "
                         ": une caisse ne passe jamais sous zéro, une banque pas au-delà de son découvert "
                         "autorisé (400 avec le solde; rien n'est envoyé).")
async def confirm_versement(id: uuid.UUID, session: SessionDep, request: Request,
                            data: ConfirmerVersementRequest | None = None,
                            auth: AuthContext = authorize(RS_VERSEMENT_CONFIRMER),
                            idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.confirmer(session, auth, request.app.state.settings, idem, id,
                                                  data or ConfirmerVersementRequest()))
