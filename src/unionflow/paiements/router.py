from __future__ import annotations

import uuid
from datetime import date
from typing import Annotated

from fastapi import Body, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_PAIEMENT_ME, RS_PAIEMENT_READ, RS_TRESORERIE, RS_WAVE_CHECKOUT
from unionflow.core.routing import area_router
from unionflow.documents.router import storage_of
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.paiements import operations
from unionflow.paiements.checkout_schemas import CreateWaveCheckoutRequest, WaveCheckoutResponse, WaveWebhookResponse
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.declarations import DeclarationService
from unionflow.paiements.recette_service import RecetteService
from unionflow.paiements.recus.service import RecuService
from unionflow.paiements.repository import PaiementFilters
from unionflow.paiements.schemas import (
    ConfirmationPaiementRequest,
    CreatePaiementRequest,
    CreateRecetteRequest,
    MotifRequest,
    PaiementResponse,
)
from unionflow.paiements.service import PaiementService

router = area_router("/api/paiements", "Paiements")

def _filters(membre_id: uuid.UUID | None = Query(None, alias="membreId"),
             organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
             statut: StatutPaiement | None = None, methode: MethodePaiement | None = None,
             date_debut: date | None = Query(None, alias="dateDebut"),
             date_fin: date | None = Query(None, alias="dateFin")) -> PaiementFilters:
    return PaiementFilters(membre_id=membre_id, organisation_id=organisation_id, statut=statut, methode=methode,
                           date_debut=date_debut, date_fin=date_fin)


@router.get("", response_model=Page[PaiementResponse], summary="Lister et rechercher les paiements",
            description="SUPER_ADMIN/ADMIN voient tout, le trésorier et l'administrateur d'organisation les "
                        "paiements de leurs organisations, un membre seulement les siens. Dates inclusives sur la "
                        "date d'encaissement (ou de création pour un paiement en attente). Plus récents d'abord.")
async def list_paiements(session: SessionDep, auth: AuthContext = authorize(RS_PAIEMENT_READ),
                         params: PageParams = Depends(paging(20)),
                         filters: PaiementFilters = Depends(_filters)) -> Page[PaiementResponse]:
    return await PaiementService(session, auth).lister(filters, params)


@router.post("", status_code=201, response_model=PaiementResponse, responses=problems(404, 409, 422),
             summary="Enregistrer un paiement manuel (espèces, virement, chèque, ...)",
             description="Saisi par le trésorier ou l'administrateur de l'organisation; réparti sur les cibles "
                         "dans l'ordre donné (montant par cible optionnel, jamais au-delà du reste dû); le total "
                         "ne peut dépasser le reste dû. referenceExterne obligatoire sauf ESPECES/AUTRE. "
                         "Deux lignes de `cibles` pour la même cotisation s'additionnent. "
                         "400 `regle-metier`: chaque cible désigne exactement un de `cotisationId` et `adhesionId`. "
                         "Extension: `avance: true` enregistre une avance — `cibles` peut être vide et le "
                         "montant dépasser le reste dû; l'excédent devient l'avoir du membre (`avoirCree`, reçu "
                         "« Avoir créé »). Une cible réservée par une session Wave ouverte: la session est d'abord "
                         "expirée chez Wave (paiement Wave EXPIRE); si Wave l'a payée ou refuse de l'expirer, 409 "
                         "avec la raison et rien n'est encaissé. En-tête Idempotency-Key recommandé.")
async def create_paiement(data: CreatePaiementRequest, session: SessionDep, request: Request,
                          auth: AuthContext = authorize(RS_TRESORERIE),
                          idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.enregistrer(session, auth, request.app.state.settings, idem, data))


@router.post("/recettes", status_code=201, response_model=PaiementResponse, responses=problems(404, 422),
             summary="Encaisser un don ou une participation à un événement (extension)",
             description="Extension. Recette reçue au guichet sans cotisation ni adhésion: `nature` DON "
                         "(dons et libéralités) ou EVENEMENT (participation à l'événement `evenementId`, dont le "
                         "prix — ou un multiple, pour plusieurs participants — est le montant dû). Un reçu dans la "
                         "série REC de l'organisation et une écriture créditant le compte de produits de la nature "
                         "(`GET /api/comptabilite/comptes-produits`); jamais d'avoir. Saisie par le trésorier ou "
                         "l'administrateur de l'organisation; annulation et remboursement par les demandes "
                         "d'annulation à deux personnes, comme tout paiement. 400 `regle-metier`: `evenementId` "
                         "obligatoire pour EVENEMENT et interdit pour DON; `referenceExterne` obligatoire sauf "
                         "ESPECES/AUTRE; événement d'une autre organisation, annulé ou gratuit, ou montant qui "
                         "n'est pas un multiple du prix. En-tête Idempotency-Key recommandé.")
async def create_recette(data: CreateRecetteRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_TRESORERIE),
                         idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: RecetteService(session, auth).encaisser(data), 201)


@router.get("/mes-paiements", response_model=Page[PaiementResponse], summary="Paiements du membre connecté")
async def my_paiements(session: SessionDep, auth: AuthContext = authorize(RS_PAIEMENT_ME),
                       params: PageParams = Depends(paging(20)),
                       filters: PaiementFilters = Depends(_filters)) -> Page[PaiementResponse]:
    return await PaiementService(session, auth).lister_miens(filters, params)


@router.get("/recu/{numeroRecu}", response_model=PaiementResponse, responses=problems(404),
            summary="Consulter un paiement par son numéro de reçu")
async def get_by_receipt(numeroRecu: str, session: SessionDep,
                         auth: AuthContext = authorize(RS_PAIEMENT_READ)) -> PaiementResponse:
    return await PaiementService(session, auth).obtenir_par_numero(numeroRecu)


@router.post("/wave/checkout", status_code=201, response_model=WaveCheckoutResponse, responses=problems(404, 409, 422,
                                                                                                      502, 503),
             summary="Payer des cotisations ou des frais d'adhésion par Wave",
             description="Ouvre une session Wave Checkout pour ce qui reste dû sur les cibles (ou le montant "
                         "indiqué par cible). Un membre paie pour lui-même; le trésorier peut ouvrir une session "
                         "pour un membre de son organisation. Une cible ne porte qu'un paiement en attente à la "
                         "fois (pas de double paiement): 409 si une session Wave est déjà en cours sur "
                         "une cible, ou si une déclaration du membre (espèces, virement, …) y attend la trésorerie "
                         "— le détail nomme la déclaration (DEC-…) et `paiementId` la désigne; elle se paie par "
                         "Wave une fois rejetée. Une session expirée chez Wave est close au passage. "
                         "Wave injoignable → 503, en erreur → 502, et rien n'est créé. "
                         "400 `regle-metier`: chaque cible désigne exactement un de `cotisationId` et "
                         "`adhesionId`; Wave n'accepte que des montants XOF entiers; sans `membreId`, le compte "
                         "de l'appelant doit avoir une fiche membre.")
async def wave_checkout(data: CreateWaveCheckoutRequest, session: SessionDep, request: Request,
                        auth: AuthContext = authorize(RS_WAVE_CHECKOUT),
                        idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.ouvrir_checkout_wave(session, auth, request.app.state.settings, idem, data))


@router.post("/wave/webhook", response_model=WaveWebhookResponse, responses=problems(401, 502, 503),
             summary="Webhook Wave (public, authentifié par signature)",
             description="Public: Wave n'a pas de jeton. Authentifié par Wave-Signature (HMAC-SHA256 du "
                         "horodatage + corps brut, tolérance 5 minutes; en-tête `t=<unix>,v1=<hex>`): une "
                         "signature absente, illisible, fausse ou périmée répond 401. Chaque événement n'est "
                         "traité qu'une fois; le paiement n'est crédité qu'après relecture de la session chez Wave. "
                         "L'argent reçu n'est jamais refusé: si ses cibles ont été réglées entre-temps (déclaration "
                         "confirmée, paiement au guichet), il devient l'avoir du membre (`avoirCree`), jamais en "
                         "silence — ligne d'audit CONVERTIR_EN_AVOIR et avis AVOIR_DOUBLE_PAIEMENT au membre et à la "
                         "trésorerie, avec le montant et la raison.")
async def wave_webhook(request: Request, session: SessionDep,
                       wave_signature: str | None = Header(None, alias="Wave-Signature")) -> WaveWebhookResponse:
    raw = await request.body()
    return await WaveCheckoutService(session, None, request.app.state.settings).recevoir_webhook(raw, wave_signature)


@router.get("/{id}", response_model=PaiementResponse, responses=problems(404), summary="Consulter un paiement")
async def get_paiement(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_PAIEMENT_READ)) -> PaiementResponse:
    return await PaiementService(session, auth).obtenir(id)


@router.get("/{id}/recu", response_class=Response, responses={
    200: {"content": {"application/pdf": {}}, "description": "Reçu PDF"}, **problems(404)},
            summary="Télécharger le reçu PDF",
            description="Reçu numéroté, prêt à signer: nom, adresse et logo de l'organisation (logo: document image "
                        "de l'organisation désigné par `logoDocumentId`), membre, lignes payées avec le reste à payer "
                        "après ce paiement, total en FCFA et en lettres, mode de paiement en clair, QR code vers "
                        "`GET /api/recus/verifier/{numero}?cle=…`. Un membre télécharge les siens. Pas de reçu pour "
                        "un paiement non encaissé (400), ni pour une déclaration rejetée (400, problem+json). Le "
                        "reçu nomme qui a reçu l'argent (« Reçu par », le trésorier) et, s'il diffère, qui l'a "
                        "déclaré.")
async def download_recu(id: uuid.UUID, request: Request, session: SessionDep,
                        auth: AuthContext = authorize(RS_PAIEMENT_READ)) -> Response:
    numero, pdf = await RecuService(session, auth, request.app.state.settings).pdf(id, storage_of(request))
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="recu-{numero}.pdf"'})


@router.get("/{id}/recu-remboursement", response_class=Response, responses={
    200: {"content": {"application/pdf": {}}, "description": "Reçu de remboursement PDF"}, **problems(404)},
            summary="Télécharger le reçu de remboursement PDF",
            description="Extension, hors spécification. Paiement remboursé après approbation par une "
                        "seconde personne: reçu numéroté dans la série propre à l'organisation "
                        "(`RMB-<code>-<année>-…`) avec la date du remboursement, le montant en chiffres et en "
                        "lettres, le motif, le reçu d'origine, qui a demandé et qui a approuvé, et les lignes de "
                        "signature du membre et du trésorier. Un membre télécharge les siens. 400 si le paiement "
                        "n'a pas été remboursé.")
async def download_recu_remboursement(id: uuid.UUID, request: Request, session: SessionDep,
                                      auth: AuthContext = authorize(RS_PAIEMENT_READ)) -> Response:
    service = RecuService(session, auth, request.app.state.settings)
    numero, pdf = await service.pdf_remboursement(id, storage_of(request))
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="remboursement-{numero}.pdf"'})


@router.post("/{id}/wave/expirer", response_model=PaiementResponse, responses=problems(404, 502, 503),
             summary="Abandonner une session Wave en attente",
             description="Expire la session chez Wave puis passe le paiement à EXPIRE. Si Wave révèle que le "
                         "paiement a abouti entre-temps, il est confirmé (VALIDE) à la place.")
async def expire_paiement(id: uuid.UUID, session: SessionDep, request: Request,
                          auth: AuthContext = authorize(RS_WAVE_CHECKOUT)) -> PaiementResponse:
    return await PaiementService(session, auth, request.app.state.settings).expirer_wave(id)


@router.post("/{id}/wave/synchroniser", response_model=PaiementResponse, responses=problems(404, 502, 503),
             summary="Relire la session Wave et appliquer son résultat",
             description="Secours quand un webhook n'est pas arrivé: session payée → VALIDE, expirée → EXPIRE.")
async def sync_paiement(id: uuid.UUID, session: SessionDep, request: Request,
                        auth: AuthContext = authorize(RS_WAVE_CHECKOUT)) -> PaiementResponse:
    return await PaiementService(session, auth, request.app.state.settings).synchroniser_wave(id)


@router.post("/{id}/confirmer", response_model=PaiementResponse, responses=problems(404, 422),
             summary="Confirmer un paiement déclaré par un membre",
             description="Trésorerie de l'organisation (permission paiement.enregistrer, 403 sinon). Un paiement "
                         "EN_ATTENTE déclaré par un membre (hors Wave, 400 sinon: Wave confirme lui-même) devient "
                         "VALIDE par le circuit d'encaissement: cotisation ou adhésion réglée, reçu, écriture "
                         "comptable. 400 si la cible a été annulée entre-temps. Si la cible a été réglée entre-temps "
                         "(par exemple par un paiement Wave), la confirmation est acceptée et le montant devient "
                         "l'avoir du membre (`avoirCree`), jamais en silence: ligne d'audit CONVERTIR_EN_AVOIR et "
                         "avis AVOIR_DOUBLE_PAIEMENT au membre et à la trésorerie (montant, raison, reçu qui avait "
                         "réglé la cible). En-tête Idempotency-Key recommandé. "
                         "Corps facultatif: sans corps, la date de réception est maintenant et sans référence. "
                         "c'est ici que le paiement reçoit son numéro de reçu officiel, dans la série de "
                         "l'organisation (il n'avait que sa référence DEC-…), et `recuPar` nomme le trésorier qui "
                         "confirme; `enregistrePar` reste le membre qui a déclaré. Extension: la trésorerie peut "
                         "corriger la méthode (`methode`) et la trésorerie (`tresorerieId`) constatées — par "
                         "exemple un transfert Wave déclaré « Autre » — avant l'écriture, qui débite alors la "
                         "trésorerie corrigée; la méthode déclarée reste dans `methodeDeclaree`, la correction est "
                         "journalisée (CORRIGER) et imprimée sur le reçu. 400 `regle-metier`: `methode` WAVE (une "
                         "session Wave, confirmée par Wave), WAVE_TRANSFERT sans identifiant de transaction Wave "
                         "(`referenceExterne` ou celle du membre), trésorerie d'un autre type que la méthode; 404 "
                         "pour une trésorerie d'une autre organisation ou inconnue.")
async def confirm_paiement(id: uuid.UUID, session: SessionDep,
                           data: Annotated[ConfirmationPaiementRequest | None, Body()] = None,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.confirmer(session, auth, idem, id, data or ConfirmationPaiementRequest()))


@router.post("/{id}/rejeter", response_model=PaiementResponse, responses=problems(404),
             summary="Rejeter un paiement déclaré par un membre",
             description="Trésorerie de l'organisation (permission paiement.enregistrer). Le paiement déclaré "
                         "EN_ATTENTE passe à ANNULE avec le motif; la cotisation ou l'adhésion reste due. Aucun "
                         "numéro de reçu n'est consommé (la déclaration garde sa référence DEC-…) et aucun reçu "
                         "n'existe: son téléchargement répond 400.")
async def reject_paiement(id: uuid.UUID, data: MotifRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_TRESORERIE)) -> PaiementResponse:
    return await DeclarationService(session, auth).rejeter(id, data)
