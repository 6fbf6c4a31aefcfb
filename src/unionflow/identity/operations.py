"""Changing one's own password as one operation, called by the API's route and by the console's form: the same
attempt limiter (per person), the same provider (built-in or Keycloak), the same revocation of every session.
The administrators' account service, as the API's ``/api/admin/users`` routes and the console's bureau build it.
Choosing the provider (Keycloak when configured, else the built-in one) lives here, beside its only callers, so the
interface (provider.py) imports neither implementation and the implementations import only the interface."""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.throttle import AttemptLimiter
from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.identity.keycloak import KeycloakAdmin, KeycloakProvider
from unionflow.identity.local import LocalProvider
from unionflow.identity.provider import IdentityProvider
from unionflow.identity.schemas import PasswordChange
from unionflow.identity.service import AdminUserService, PasswordService, WrongCurrentPassword


def keycloak_configured(settings: Settings) -> bool:
    return bool(settings.keycloak_admin_url and settings.keycloak_realm and settings.keycloak_admin_client_id)


def keycloak_provider(request: Request) -> IdentityProvider | None:
    """The Keycloak provider when configured. Its client (and the cached service-account token) lives on
    ``app.state`` so that every request of a worker reuses it."""
    settings: Settings = request.app.state.settings
    if not keycloak_configured(settings):
        return None
    admin = getattr(request.app.state, "keycloak_admin", None)
    if admin is None:
        admin = KeycloakAdmin(settings)
        request.app.state.keycloak_admin = admin
    return KeycloakProvider(admin)


def local_provider(session: AsyncSession) -> IdentityProvider:
    return LocalProvider(session)


def identity_provider(request: Request, session: AsyncSession) -> IdentityProvider:
    """The provider holding the accounts that the administration manages: Keycloak when configured, else
    the built-in one."""
    return keycloak_provider(request) or local_provider(session)


def comptes(request: Request, session: AsyncSession, auth: AuthContext) -> AdminUserService:
    """The accounts of the configured provider; "your own account" is (issuer of its tokens, subject)."""
    provider = identity_provider(request, session)
    settings = request.app.state.settings
    issuer = settings.issuer if provider.kind == "builtin" else settings.oidc_issuer
    return AdminUserService(session, auth, provider, issuer)


async def changer_mot_de_passe(request: Request, session: AsyncSession, auth: AuthContext,
                               data: PasswordChange) -> None:
    limiter = AttemptLimiter(request, "password")
    key = limiter.key("sub", f"{auth.issuer} {auth.sub}")  # a person is (issuer, subject)
    settings = request.app.state.settings
    service = PasswordService(session, auth, local_provider(session), keycloak_provider(request),
                              settings.issuer if settings.builtin_idp_enabled else None)
    await limiter.attempt(session, [(key, limiter.limit)], [key], lambda: service.changer(data),
                          WrongCurrentPassword)
