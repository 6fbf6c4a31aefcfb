"""Changing one's own password as one operation, called by the API's route and by the console's form: the same
attempt limiter (per person), the same provider (built-in or Keycloak), the same revocation of every session.
The administrators' account service, as the API's ``/api/admin/users`` routes and the console's bureau build it."""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.throttle import AttemptLimiter
from unionflow.core.auth import AuthContext
from unionflow.identity.provider import identity_provider, keycloak_provider, local_provider
from unionflow.identity.schemas import PasswordChange
from unionflow.identity.service import AdminUserService, PasswordService, WrongCurrentPassword


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
