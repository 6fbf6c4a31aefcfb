from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_TICKET_STAFF
from unionflow.core.routing import area_router
from unionflow.models.ticket import CategorieTicket, Priorite, StatutTicket
from unionflow.tickets.repository import TicketFilters
from unionflow.tickets.schemas import (
    AssignationRequest,
    ChangementStatutRequest,
    CreateTicketRequest,
    TicketMessageResponse,
    TicketResponse,
    TicketsCreateMessageRequest,
    UpdateTicketRequest,
)
from unionflow.tickets.service import REOPEN_DAYS, TicketService

router = area_router("/api/tickets", "Tickets")

_VISIBILITY = ("Visibilité: le demandeur voit ses tickets, le bureau de l'organisation qui traite le ticket "
               "voit ses tickets, ADMIN/SUPER_ADMIN tout; sinon 404.")


@router.post("", status_code=201, response_model=TicketResponse, responses=problems(404),
             summary="Ouvrir un ticket de support",
             description="Un membre ouvre un ticket auprès du bureau de son organisation (destinataire "
                         "ORGANISATION) ou de l'union en tête de sa hiérarchie (UNION). Numéro TCK-AAAA-NNNNNN; "
                         "échéances SLA calculées selon la priorité (première réponse URGENTE 4 h, HAUTE 8 h, "
                         "NORMALE 24 h, BASSE 72 h; résolution 1, 3, 7, 14 jours). Fiche membre requise "
                         "(compte sans fiche: 400 `regle-metier`).")
async def create_ticket(data: CreateTicketRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TicketResponse:
    return await TicketService(session, auth).creer(data)


def _filters(statut: StatutTicket | None = None, priorite: Priorite | None = None,
             categorie: CategorieTicket | None = None,
             organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
             assigne_membre_id: uuid.UUID | None = Query(None, alias="assigneMembreId"),
             non_assigne: bool = Query(False, alias="nonAssigne"),
             sla_depasse: bool = Query(False, alias="slaDepasse"),
             q: str | None = Query(None, max_length=100),
             tri: str = Query("PRIORITE", pattern="^(PRIORITE|DATE)$",
                              description="PRIORITE (urgentes puis plus anciennes d'abord) ou DATE (récentes)"),
             ) -> TicketFilters:
    return TicketFilters(statut=statut, priorite=priorite, categorie=categorie, organisation_id=organisation_id,
                         assigne_membre_id=assigne_membre_id, non_assigne=non_assigne, sla_depasse=sla_depasse,
                         q=q, tri=tri)


@router.get("", response_model=Page[TicketResponse], summary="File de traitement du bureau",
            description="Tickets que l'appelant traite: ceux des organisations où il a un rôle de bureau "
                        "(ADMIN/SUPER_ADMIN: tous). Filtres statut, priorité, catégorie, organisation, "
                        "assigné, non assignés, SLA dépassé, recherche q (numéro, sujet, description).")
async def ticket_queue(session: SessionDep, auth: AuthContext = authorize(RS_TICKET_STAFF),
                       params: PageParams = Depends(paging(20)),
                       filters: TicketFilters = Depends(_filters)) -> Page[TicketResponse]:
    return await TicketService(session, auth).queue(filters, params)


@router.get("/mes-tickets", response_model=Page[TicketResponse], summary="Mes tickets",
            description="Tickets ouverts par le membre connecté, mêmes filtres que la file.")
async def my_tickets(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                     params: PageParams = Depends(paging(20)),
                     filters: TicketFilters = Depends(_filters)) -> Page[TicketResponse]:
    return await TicketService(session, auth).mine(filters, params)


@router.get("/{id}", response_model=TicketResponse, responses=problems(404), summary="Consulter un ticket",
            description=_VISIBILITY)
async def get_ticket(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TicketResponse:
    return await TicketService(session, auth).obtenir(id)


@router.put("/{id}", response_model=TicketResponse, responses=problems(404), summary="Modifier un ticket",
            description="Le demandeur modifie sujet, description, catégorie et priorité tant que le ticket est "
                        "OUVERT; le bureau requalifie catégorie et priorité jusqu'à la fermeture (échéances "
                        "SLA recalculées depuis l'ouverture). " + _VISIBILITY)
async def update_ticket(id: uuid.UUID, data: UpdateTicketRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TicketResponse:
    return await TicketService(session, auth).modifier(id, data)


@router.put("/{id}/assignation", response_model=TicketResponse, responses=problems(404),
            summary="Assigner un ticket à un membre du bureau",
            description="Le bureau de l'organisation assigne (ou désassigne avec null) le ticket à un membre "
                        "ayant un rôle de bureau actif dans cette organisation.")
async def assign_ticket(id: uuid.UUID, data: AssignationRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_TICKET_STAFF)) -> TicketResponse:
    return await TicketService(session, auth).assigner(id, data)


@router.post("/{id}/statut", response_model=TicketResponse, responses=problems(404),
             summary="Changer le statut d'un ticket",
             description="OUVERT → EN_COURS (bureau) → RESOLU (bureau, commentaire = résolution) → FERME "
                         "(demandeur qui confirme, ou bureau). Le demandeur peut retirer un ticket non résolu "
                         f"(FERME) ou rouvrir un ticket RESOLU (→ EN_COURS, commentaire requis) dans les "
                         f"{REOPEN_DAYS} jours suivant la résolution; le bureau peut le rouvrir à tout moment. "
                         "FERME est final. Le commentaire est ajouté au fil comme réponse publique.")
async def change_ticket_status(id: uuid.UUID, data: ChangementStatutRequest, session: SessionDep,
                               auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TicketResponse:
    return await TicketService(session, auth).changer_statut(id, data)


@router.get("/{id}/messages", response_model=list[TicketMessageResponse], responses=problems(404),
            summary="Fil de discussion d'un ticket",
            description="Réponses publiques et, pour le bureau seulement, notes internes. " + _VISIBILITY)
async def ticket_messages(id: uuid.UUID, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> list[TicketMessageResponse]:
    return await TicketService(session, auth).messages(id)


@router.post("/{id}/messages", status_code=201, response_model=TicketMessageResponse, responses=problems(404),
             summary="Répondre sur un ticket",
             description="Le demandeur et le bureau répondent; `interne: true` (bureau seulement) écrit une note "
                         "invisible du demandeur. La première réponse publique du bureau date la première "
                         "réponse (SLA) et fait passer un ticket OUVERT à EN_COURS. Impossible sur un ticket FERME.")
async def post_ticket_message(id: uuid.UUID, data: TicketsCreateMessageRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TicketMessageResponse:
    return await TicketService(session, auth).ajouter_message(id, data)
