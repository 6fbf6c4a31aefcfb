"""Every call of the console into the domain services, in one place.

The console writes no rule: it calls the same services as the API, with the same ``AuthContext``, so the same
repositories scope the rows (404) and the same permissions refuse the actions (403). Money operations go through
the same idempotence table as the API (``core.idempotence``), under the key generated in the form.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from unionflow.adhesions.schemas import AdhesionResponse
from unionflow.adhesions.service import AdhesionService
from unionflow.auth.repository import RefreshTokenRepository
from unionflow.auth.schemas import TokenResponse
from unionflow.auth.service import InvalidGrant, TokenService
from unionflow.compte.schemas import CompteAdherentResponse, DashboardOrganisationResponse
from unionflow.compte.service import CompteService
from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.pagination import Page, PageParams
from unionflow.core.roles import GLOBAL_ROLES
from unionflow.cotisations import operations as cotisations_ops
from unionflow.cotisations.schemas import CotisationSummaryResponse, PaiementCotisationRequest
from unionflow.cotisations.service import CotisationService
from unionflow.documents.router import storage_of
from unionflow.imports.router import MAX_OCTETS
from unionflow.imports.schemas import ImportMembresResponse
from unionflow.imports.service import ImportMembresService, dossier_imports
from unionflow.lcbft.schemas import AlerteResponse, TraiterAlerteRequest
from unionflow.lcbft.service import LcbFtService
from unionflow.lcbft.service import parse_filters as alerte_filters
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.membres.repository import MembreFilters
from unionflow.membres.schemas import AppartenanceResponse, MembreResponse
from unionflow.membres.service import MembreService
from unionflow.models.paiement import StatutPaiement
from unionflow.notifications.schemas import NotificationResponse
from unionflow.notifications.service import NotificationService
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements import operations as paiements_ops
from unionflow.paiements.avoirs.api_service import AvoirApiService
from unionflow.paiements.avoirs.schemas import AvoirResponse, ImputerAvoirRequest, RegistreAvoirsResponse
from unionflow.paiements.declarations import DeclarationService
from unionflow.paiements.recus.service import RecuService
from unionflow.paiements.repository import PaiementFilters
from unionflow.paiements.schemas import (
    ConfirmationPaiementRequest,
    CreatePaiementRequest,
    MotifRequest,
    PaiementResponse,
)
from unionflow.paiements.service import PaiementService
from unionflow.paiements.versements.repository import VersementFilters
from unionflow.paiements.versements.schemas import StatutVersement, VersementResponse
from unionflow.paiements.versements.service import VersementService
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

IMPORT_MAX_OCTETS = MAX_OCTETS


# --- identity (the built-in provider's token service, server side) ---------------------------------------------

async def password_grant(session: AsyncSession, request: Request, email: str, password: str) -> TokenResponse:
    return await TokenService(session, request.app.state.settings).password_grant(email, password)


async def refresh_grant(session: AsyncSession, request: Request, refresh_token: str) -> TokenResponse | None:
    result = await TokenService(session, request.app.state.settings).refresh_grant(refresh_token)
    return None if isinstance(result, InvalidGrant) else result


async def revoke(session: AsyncSession, refresh_token: str) -> None:
    """Sign-out ends the refresh token's whole family (its rotations included)."""
    tokens = RefreshTokenRepository(session)
    stored = await tokens.by_hash_for_update(hashlib.sha256(refresh_token.encode()).hexdigest())
    if stored is not None:
        await tokens.revoke_family(stored.family_id, datetime.now(UTC))


async def revoke_everywhere(session: AsyncSession, refresh_token: str) -> None:
    """Sign-out everywhere: every refresh token of the person this one belongs to (every browser, every app)."""
    tokens = RefreshTokenRepository(session)
    stored = await tokens.by_hash_for_update(hashlib.sha256(refresh_token.encode()).hexdigest())
    if stored is not None:
        await tokens.revoke_user(stored.user_id, datetime.now(UTC))


async def session_ouverte(session: AsyncSession, refresh_token: str) -> bool:
    """The refresh token is still live: not revoked (sign-out here or everywhere, password changed) nor expired."""
    token_hash = hashlib.sha256(refresh_token.encode()).hexdigest()
    return await RefreshTokenRepository(session).vivant(token_hash, datetime.now(UTC))


# --- money operations: the API's own functions (one door) ---------------------------------------------------------

def settings_of(request: Request) -> Settings:
    """The application's settings, as the API's routes pass them (Wave's address and key among them)."""
    settings: Settings = request.app.state.settings
    return settings


def corps(**fields: Any) -> dict[str, Any]:
    """The JSON body the API route would receive for this form: camelCase names, what was left empty omitted."""
    return {name: value for name, value in fields.items() if value not in (None, "")}


async def encaisser(session: AsyncSession, auth: AuthContext, request: Request, key: str, membre_id: uuid.UUID,
                    organisation_id: uuid.UUID, montant: Decimal, methode: str, reference: str | None,
                    cotisations: list[uuid.UUID], avance: bool = False) -> uuid.UUID:
    """POST /api/paiements: the body validated by the route's schema (its French 400), then the route's function.
    ``avance``: what pays no dues becomes the member's credit (the API's ``avance``)."""
    body = corps(membreId=str(membre_id), organisationId=str(organisation_id), montant=str(montant),
                 methode=methode, referenceExterne=reference, cibles=[{"cotisationId": str(c)} for c in cotisations],
                 avance=True if avance else None)
    data = CreatePaiementRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, paiements_ops.OPERATION_ENREGISTRER, key, body)
    answer = await paiements_ops.enregistrer(session, auth, settings_of(request), idem, data)
    return uuid.UUID(answer.body["id"])


async def declarer(session: AsyncSession, auth: AuthContext, request: Request, key: str, cotisation_id: uuid.UUID,
                   montant: Decimal, methode: str, reference: str | None) -> dict[str, Any]:
    """PUT /api/cotisations/{id}/payer for the member's own dues: a declaration the treasury confirms."""
    body = corps(montant=str(montant), methodePaiement=methode, referencePaiement=reference)
    data = PaiementCotisationRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, cotisations_ops.OPERATION_PAYER, key, body, {"id": cotisation_id})
    answer = await cotisations_ops.payer(session, auth, settings_of(request), idem, cotisation_id, data)
    stored: dict[str, Any] = answer.body
    return stored


async def confirmer(session: AsyncSession, auth: AuthContext, key: str, paiement_id: uuid.UUID,
                    reference: str | None, methode: str | None = None, tresorerie_id: uuid.UUID | None = None
                    ) -> None:
    """POST /api/paiements/{id}/confirmer, with the method and treasury the treasurer found."""
    body = corps(referenceExterne=reference, methode=methode,
                 tresorerieId=str(tresorerie_id) if tresorerie_id else None)
    data = ConfirmationPaiementRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, paiements_ops.OPERATION_CONFIRMER, key, body, {"id": paiement_id})
    await paiements_ops.confirmer(session, auth, idem, paiement_id, data)


async def rejeter(session: AsyncSession, auth: AuthContext, paiement_id: uuid.UUID, motif: str) -> None:
    await DeclarationService(session, auth).rejeter(paiement_id, MotifRequest(motif=motif))


# --- reads ---------------------------------------------------------------------------------------------------------

async def tableau_tresorerie(session: AsyncSession, auth: AuthContext) -> DashboardOrganisationResponse:
    return await CompteService(session, auth).dashboard_organisation(None)


async def alertes_ouvertes(session: AsyncSession, auth: AuthContext, size: int = 50,
                           traitee: bool = False) -> Page[AlerteResponse]:
    """GET /api/alertes-lcb-ft?traitee=false&organisationId=<active>: the same filters, service and scope."""
    filters = alerte_filters(None, None, auth.active_organisation_id, None, traitee)
    return await LcbFtService(session, auth).lister(filters, PageParams(0, size))


async def traiter_alerte(session: AsyncSession, auth: AuthContext, alerte_id: str,
                         data: TraiterAlerteRequest) -> AlerteResponse:
    """POST /api/alertes-lcb-ft/{id}/traiter: the same service (permission, first decision stands)."""
    return await LcbFtService(session, auth).traiter(alerte_id, data)


async def versements_a_approuver(session: AsyncSession, auth: AuthContext, request: Request,
                                 size: int = 50) -> Page[VersementResponse]:
    """GET /api/versements?statut=EN_COURS&organisationId=<active>: prepared payouts that a second person of
    the treasury still has to confirm (nothing has left the account yet)."""
    filters = VersementFilters(organisation_id=auth.active_organisation_id, statut=StatutVersement.EN_COURS)
    return await VersementService(session, auth, request.app.state.settings).lister(filters, PageParams(0, size))


async def paiements(session: AsyncSession, auth: AuthContext, *, statut: StatutPaiement | None = None,
                    membre_id: uuid.UUID | None = None, jour: date | None = None, depuis: date | None = None,
                    size: int = 50) -> Page[PaiementResponse]:
    filters = PaiementFilters(membre_id=membre_id, organisation_id=auth.active_organisation_id, statut=statut,
                              methode=None, date_debut=depuis or jour, date_fin=jour)
    return await PaiementService(session, auth).lister(filters, PageParams(0, size))


async def paiement(session: AsyncSession, auth: AuthContext, paiement_id: uuid.UUID) -> PaiementResponse:
    return await PaiementService(session, auth).obtenir(paiement_id)


async def recu_pdf(session: AsyncSession, auth: AuthContext, request: Request,
                   paiement_id: uuid.UUID) -> tuple[str, bytes]:
    return await RecuService(session, auth, request.app.state.settings).pdf(paiement_id, storage_of(request))


async def membre(session: AsyncSession, auth: AuthContext, membre_id: uuid.UUID,
                 ecran: str | None = None) -> MembreResponse:
    return await MembreService(session, auth).obtenir(membre_id, ecran)


async def membres(session: AsyncSession, auth: AuthContext, q: str | None, page: int) -> Page[MembreResponse]:
    filters = MembreFilters(q=q or None, organisation_id=auth.active_organisation_id)
    return await MembreService(session, auth).lister(filters, PageParams(page, 25))


async def appartenances(session: AsyncSession, auth: AuthContext, membre_id: uuid.UUID) -> list[AppartenanceResponse]:
    return await AppartenanceService(session, auth).lister(membre_id)


async def cotisations_de(session: AsyncSession, auth: AuthContext,
                         membre_id: uuid.UUID) -> Page[CotisationSummaryResponse]:
    return await CotisationService(session, auth).lister_du_membre(membre_id, PageParams(0, 100))


async def mon_compte(session: AsyncSession, auth: AuthContext) -> CompteAdherentResponse:
    return await CompteService(session, auth).compte(None)


async def mes_paiements(session: AsyncSession, auth: AuthContext) -> Page[PaiementResponse]:
    filters = PaiementFilters(membre_id=None, organisation_id=None, statut=None, methode=None, date_debut=None,
                              date_fin=None)
    return await PaiementService(session, auth).lister_miens(filters, PageParams(0, 50))


async def mes_notifications(session: AsyncSession, auth: AuthContext) -> Page[NotificationResponse]:
    return await NotificationService(session, auth).mine(PageParams(0, 50), False)


async def adhesions_en_attente(session: AsyncSession, auth: AuthContext) -> Page[AdhesionResponse]:
    from unionflow.models.adhesion import StatutAdhesion

    return await AdhesionService(session, auth).lister(PageParams(0, 50), statut=StatutAdhesion.EN_ATTENTE)


async def approuver_adhesion(session: AsyncSession, auth: AuthContext, adhesion_id: uuid.UUID) -> None:
    await AdhesionService(session, auth).approuver(adhesion_id, None)


async def rejeter_adhesion(session: AsyncSession, auth: AuthContext, adhesion_id: uuid.UUID, motif: str) -> None:
    await AdhesionService(session, auth).rejeter(adhesion_id, motif)


async def importer(session: AsyncSession, auth: AuthContext, request: Request, organisation_id: uuid.UUID,
                   contenu: bytes, simulation: bool) -> ImportMembresResponse | TacheResponse:
    """As POST /api/membres/import: the dry run inline; a real run of more than
    ``UNIONFLOW_TACHE_SEUIL_IMPORT_LIGNES`` lines handed to a background task (its page shows the progress)."""
    settings = request.app.state.settings
    return await ImportMembresService(session, auth).importer(organisation_id, contenu, simulation,
                                                              settings.tache_seuil_import_lignes,
                                                              dossier_imports(settings.data_dir))


async def tache(session: AsyncSession, auth: AuthContext, tache_id: uuid.UUID) -> TacheResponse:
    """GET /api/jobs/{id}: visible to its creator and SUPER_ADMIN/ADMIN (404 for anyone else)."""
    return await TacheService(session, auth).obtenir(tache_id)


async def fichier_tache(session: AsyncSession, auth: AuthContext, request: Request,
                        tache_id: uuid.UUID) -> tuple[Any, str, str]:
    """GET /api/jobs/{id}/fichier: (path, download name, media type) of a finished export."""
    return await TacheService(session, auth).fichier(tache_id, request.app.state.settings)


@dataclass(frozen=True)
class ChoixOrganisation:
    """An organisation the chooser offers, with the roles the caller acts with there."""

    organisation_id: uuid.UUID
    organisation_nom: str
    roles: list[str]


# The union administrator's chooser lists the directory's first organisations (parents first), as its page does.
CHOIX_MAX = 200


async def mes_organisations(session: AsyncSession, auth: AuthContext) -> list[ChoixOrganisation]:
    """The organisations the chooser offers: the caller's memberships (with their roles), and for the union's
    administrators (ADMIN, SUPER_ADMIN: every organisation is theirs to act for) every other one they see, under
    their union role. Without them the union administrator's chooser offered nothing to choose."""
    choix: list[ChoixOrganisation] = []
    if auth.membre_id is not None:
        choix = [ChoixOrganisation(a.organisation_id, a.organisation_nom, list(a.roles))
                 for a in await AppartenanceService(session, auth).lister(auth.membre_id)
                 if a.organisation_id in auth.memberships]
    if auth.is_global:
        deja = {c.organisation_id for c in choix}
        roles = sorted(auth.realm_roles & GLOBAL_ROLES)
        choix += [ChoixOrganisation(o.id, o.nom, roles)
                  for o in await OrganisationRepository(session, auth).annuaire(CHOIX_MAX) if o.id not in deja]
    return choix


async def avoir(session: AsyncSession, auth: AuthContext, membre_id: uuid.UUID,
                organisation_id: uuid.UUID) -> AvoirResponse:
    """The member's credit with the organisation, as ``GET /api/avoirs`` gives it."""
    return await AvoirApiService(session, auth).obtenir(membre_id, organisation_id)


async def imputer_avoir(session: AsyncSession, auth: AuthContext, key: str, membre_id: uuid.UUID,
                        organisation_id: uuid.UUID) -> dict[str, Any]:
    """POST /api/avoirs/imputer under the form's key."""
    body = corps(membreId=str(membre_id), organisationId=str(organisation_id))
    data = ImputerAvoirRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, paiements_ops.OPERATION_IMPUTER_AVOIR, key, body)
    stored: dict[str, Any] = (await paiements_ops.imputer_avoir(session, auth, idem, data)).body
    return stored


async def registre_avoirs(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID
                          ) -> RegistreAvoirsResponse:
    """GET /api/avoirs/registre: the same service and scope."""
    return await AvoirApiService(session, auth).registre(organisation_id)
