"""Webhooks: an organisation's subscriptions to UnionFlow events, their deliveries and replay
(docs/integrations.md)."""

from __future__ import annotations

import uuid

from fastapi import Depends, Query, Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_WEBHOOK
from unionflow.core.routing import area_router
from unionflow.models.integration import StatutLivraison
from unionflow.webhooks.emission import LIBELLES, EvenementWebhook
from unionflow.webhooks.schemas import (
    AbonnementWebhookResponse,
    AbonnementWebhookSecretResponse,
    CreateAbonnementWebhookRequest,
    EvenementWebhookResponse,
    LivraisonWebhookResponse,
    UpdateAbonnementWebhookRequest,
)
from unionflow.webhooks.service import WebhookService

router = area_router("/api/webhooks", "Webhooks")

_SIGNATURE = ("Chaque livraison est un POST JSON `{id, type, organisationId, creeLe, donnees}` signé par l'en-tête "
              "`UnionFlow-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + \".\" + corps)>`; réponse 2xx = "
              "livrée, sinon nouvelles tentatives avec attente exponentielle, puis abonnement désactivé après "
              "trop d'échecs consécutifs (les administrateurs de l'organisation sont notifiés).")


def _service(request: Request, session: SessionDep, auth: AuthContext) -> WebhookService:
    return WebhookService(session, auth, request.app.state.settings)


@router.get("/evenements", response_model=list[EvenementWebhookResponse], summary="Événements disponibles")
async def evenements(auth: AuthContext = authorize(RS_WEBHOOK)) -> list[EvenementWebhookResponse]:
    return [EvenementWebhookResponse(code=e.value, libelle=LIBELLES[e]) for e in EvenementWebhook]


@router.post("/abonnements", response_model=AbonnementWebhookSecretResponse, status_code=201,
             summary="Créer un abonnement webhook",
             description="Réservé aux administrateurs de l'organisation. URL http(s) seulement; les adresses "
                         "privées, locales et réservées sont refusées (paramètre "
                         "`webhook_autoriser_adresses_privees`). Le `secret` de signature n'est renvoyé qu'ici "
                         "et à la rotation. " + _SIGNATURE)
async def create_abonnement(request: Request, data: CreateAbonnementWebhookRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_WEBHOOK)) -> AbonnementWebhookSecretResponse:
    return await _service(request, session, auth).creer(data)


@router.get("/abonnements", response_model=Page[AbonnementWebhookResponse], summary="Lister les abonnements")
async def list_abonnements(request: Request, session: SessionDep, auth: AuthContext = authorize(RS_WEBHOOK),
                           params: PageParams = Depends(paging(20)),
                           organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                           ) -> Page[AbonnementWebhookResponse]:
    return await _service(request, session, auth).lister(organisation_id, params)


@router.get("/abonnements/{id}", response_model=AbonnementWebhookResponse, responses=problems(404),
            summary="Consulter un abonnement")
async def get_abonnement(id: uuid.UUID, request: Request, session: SessionDep,
                         auth: AuthContext = authorize(RS_WEBHOOK)) -> AbonnementWebhookResponse:
    return await _service(request, session, auth).obtenir(id)


@router.put("/abonnements/{id}", response_model=AbonnementWebhookResponse, responses=problems(404),
            summary="Modifier, désactiver ou réactiver un abonnement",
            description="Mise à jour partielle. `actif: true` réactive un abonnement désactivé: les livraisons "
                        "en attente reprennent et le compteur d'échecs repart de zéro.")
async def update_abonnement(id: uuid.UUID, request: Request, data: UpdateAbonnementWebhookRequest,
                            session: SessionDep,
                            auth: AuthContext = authorize(RS_WEBHOOK)) -> AbonnementWebhookResponse:
    return await _service(request, session, auth).modifier(id, data)


@router.post("/abonnements/{id}/secret", response_model=AbonnementWebhookSecretResponse, responses=problems(404),
             summary="Renouveler le secret de signature",
             description="L'ancien secret cesse aussitôt de signer; les livraisons suivantes utilisent le nouveau.")
async def rotate_secret(id: uuid.UUID, request: Request, session: SessionDep,
                        auth: AuthContext = authorize(RS_WEBHOOK)) -> AbonnementWebhookSecretResponse:
    return await _service(request, session, auth).renouveler_secret(id)


@router.delete("/abonnements/{id}", status_code=204, responses=problems(404), summary="Supprimer un abonnement",
               description="Supprime aussi son historique de livraisons.")
async def delete_abonnement(id: uuid.UUID, request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_WEBHOOK)) -> Response:
    await _service(request, session, auth).supprimer(id)
    return Response(status_code=204)


@router.get("/abonnements/{id}/livraisons", response_model=Page[LivraisonWebhookResponse],
            responses=problems(404), summary="Historique des livraisons d'un abonnement",
            description="Statuts EN_ATTENTE, LIVREE, ECHOUEE; `historique` liste chaque tentative (date, code HTTP, "
                        "erreur, durée).")
async def livraisons(id: uuid.UUID, request: Request, session: SessionDep, auth: AuthContext = authorize(RS_WEBHOOK),
                     params: PageParams = Depends(paging(20)),
                     statut: StatutLivraison | None = None,
                     ) -> Page[LivraisonWebhookResponse]:
    return await _service(request, session, auth).livraisons(id, statut, params)


@router.post("/livraisons/{id}/rejouer", response_model=LivraisonWebhookResponse, status_code=201,
             responses=problems(404), summary="Rejouer une livraison",
             description="Crée une nouvelle livraison du même événement (même `id` dans le corps: le récepteur "
                         "peut dédoublonner), envoyée par le prochain passage de `unionflow jobs livrer-webhooks`.")
async def rejouer(id: uuid.UUID, request: Request, session: SessionDep,
                  auth: AuthContext = authorize(RS_WEBHOOK)) -> LivraisonWebhookResponse:
    return await _service(request, session, auth).rejouer(id)
