from __future__ import annotations

import uuid

from fastapi import Depends, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.messagerie.schemas import (
    AddParticipantsRequest,
    ConversationResponse,
    CreateConversationRequest,
    CreateMessageRequest,
    MessageResponse,
    NonLusResponse,
)
from unionflow.messagerie.service import MessagerieService

router = area_router("/api/messagerie", "Messagerie")

_PRIVATE = "Seuls les participants actuels y accèdent (ADMIN compris: sinon 404)."


@router.post("/conversations", status_code=201, response_model=ConversationResponse, responses=problems(404),
             summary="Ouvrir une conversation",
             description="Entre membres actifs d'une même organisation (l'appelant compris). DIRECTE: un seul "
                         "autre participant; si la conversation de la paire existe déjà dans cette organisation, "
                         "elle est renvoyée avec le code 200. GROUPE: titre requis. 400 `regle-metier` sinon "
                         "(DIRECTE avec un nombre d'autres participants différent de un, GROUPE sans titre).")
async def create_conversation(data: CreateConversationRequest, response: Response, session: SessionDep,
                              auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> ConversationResponse:
    conversation, created = await MessagerieService(session, auth).creer(data)
    if not created:
        response.status_code = 200
    return conversation


@router.get("/conversations", response_model=Page[ConversationResponse], summary="Mes conversations",
            description="Dernière activité d'abord, avec le nombre de messages non lus de chacune.")
async def my_conversations(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                           params: PageParams = Depends(paging(20))) -> Page[ConversationResponse]:
    return await MessagerieService(session, auth).mine(params)


@router.get("/non-lus", response_model=NonLusResponse, summary="Compteur de messages non lus")
async def unread_count(session: SessionDep,
                       auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> NonLusResponse:
    return await MessagerieService(session, auth).unread_total()


@router.get("/conversations/{id}", response_model=ConversationResponse, responses=problems(404),
            summary="Consulter une conversation", description=_PRIVATE)
async def get_conversation(id: uuid.UUID, session: SessionDep,
                           auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> ConversationResponse:
    return await MessagerieService(session, auth).obtenir(id)


@router.post("/conversations/{id}/participants", response_model=ConversationResponse, responses=problems(404),
             summary="Ajouter des membres à un groupe",
             description="Tout participant d'un GROUPE ajoute des membres actifs de l'organisation (un membre parti "
                         "peut revenir). " + _PRIVATE)
async def add_participants(id: uuid.UUID, data: AddParticipantsRequest, session: SessionDep,
                           auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> ConversationResponse:
    return await MessagerieService(session, auth).ajouter_participants(id, data)


@router.delete("/conversations/{id}/participants/moi", status_code=204, response_class=Response,
               responses=problems(404), summary="Quitter un groupe",
               description="Le participant perd l'accès à la conversation; une conversation DIRECTE ne se quitte "
                           "pas (400).")
async def leave_conversation(id: uuid.UUID, session: SessionDep,
                             auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> Response:
    await MessagerieService(session, auth).quitter(id)
    return Response(status_code=204)


@router.get("/conversations/{id}/messages", response_model=Page[MessageResponse], responses=problems(404),
            summary="Messages d'une conversation",
            description="Plus récents d'abord. La lecture ne marque pas les messages comme lus: "
                        "appelez POST /conversations/{id}/lu. " + _PRIVATE)
async def conversation_messages(id: uuid.UUID, session: SessionDep,
                                auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                                params: PageParams = Depends(paging(50))) -> Page[MessageResponse]:
    return await MessagerieService(session, auth).messages(id, params)


@router.post("/conversations/{id}/messages", status_code=201, response_model=MessageResponse,
             responses=problems(404), summary="Envoyer un message",
             description="Texte (`contenu`) ou note vocale (`documentId` d'un document audio OGG/Opus, MP3, "
                         "M4A/AAC ou WAV téléversé par l'appelant via /api/documents/upload, `dureeSecondes` "
                         "facultative); les participants peuvent alors télécharger ce document. 400 `regle-metier`: "
                         "`contenu` ou `documentId`, l'un des deux exactement; `dureeSecondes` seulement pour une "
                         "note vocale. " + _PRIVATE)
async def post_message(id: uuid.UUID, data: CreateMessageRequest, session: SessionDep,
                       auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> MessageResponse:
    return await MessagerieService(session, auth).envoyer(id, data)


@router.post("/conversations/{id}/lu", response_model=ConversationResponse, responses=problems(404),
             summary="Marquer la conversation comme lue", description=_PRIVATE)
async def mark_read(id: uuid.UUID, session: SessionDep,
                    auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> ConversationResponse:
    return await MessagerieService(session, auth).marquer_lu(id)
