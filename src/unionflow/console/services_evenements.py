"""The console's calls into the events area (events, registrations, waiting list), with the API's ``AuthContext``:
the events repository scopes what is visible (404), the services ask ``evenement.gerer`` (403) and hold the
capacity, waiting-list and promotion rules."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.evenements.inscription_service import InscriptionService
from unionflow.evenements.repository import EvenementFilters
from unionflow.evenements.schemas import (
    TYPE_EVENEMENT_DOMAINE,
    Evenement,
    EvenementMobileDTO,
    EvenementsParticipantResponse,
    InscriptionResponse,
    MonInscriptionResponse,
)
from unionflow.evenements.service import EvenementService
from unionflow.types_reference.repository import TypeFilters
from unionflow.types_reference.service import TypeReferenceService


async def actifs(session: AsyncSession, auth: AuthContext) -> list[EvenementMobileDTO]:
    """GET /api/evenements: not cancelled nor finished, visible to the caller, by start date."""
    return (await EvenementService(session, auth).lister(EvenementFilters(only_active=True),
                                                         PageParams(0, 50))).content


async def evenement(session: AsyncSession, auth: AuthContext, evenement_id: uuid.UUID) -> EvenementMobileDTO:
    return await EvenementService(session, auth).obtenir(evenement_id)


async def creer(session: AsyncSession, auth: AuthContext, data: Evenement) -> EvenementMobileDTO:
    return await EvenementService(session, auth).creer(data)


async def mes_inscriptions(session: AsyncSession, auth: AuthContext) -> list[MonInscriptionResponse]:
    return await InscriptionService(session, auth).mine()


async def inscrire(session: AsyncSession, auth: AuthContext, evenement_id: uuid.UUID) -> InscriptionResponse:
    return await InscriptionService(session, auth).inscrire(evenement_id)


async def desinscrire(session: AsyncSession, auth: AuthContext, evenement_id: uuid.UUID) -> None:
    await InscriptionService(session, auth).desinscrire(evenement_id)


async def participants(session: AsyncSession, auth: AuthContext,
                       evenement_id: uuid.UUID) -> list[EvenementsParticipantResponse]:
    return (await InscriptionService(session, auth).participants(evenement_id, PageParams(0, 200))).content


async def liste_attente(session: AsyncSession, auth: AuthContext,
                        evenement_id: uuid.UUID) -> list[EvenementsParticipantResponse]:
    return await InscriptionService(session, auth).liste_attente(evenement_id)


async def types(session: AsyncSession, auth: AuthContext) -> list[tuple[str, str]]:
    """The active event types of the reference table (GET /api/types-reference?domaine=TYPE_EVENEMENT)."""
    found = await TypeReferenceService(session, auth).lister(TypeFilters(domaine=TYPE_EVENEMENT_DOMAINE, actif=True),
                                                             PageParams(0, 100))
    return [(t.code, t.libelle) for t in found.content]
