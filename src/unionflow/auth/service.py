"""Built-in identity provider: password and refresh-token grants, RS256 access tokens."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth import keys
from unionflow.auth.repository import RefreshTokenRepository, UtilisateurRepository
from unionflow.auth.schemas import TokenResponse
from unionflow.clients_api.repository import ClientApiRepository
from unionflow.config import Settings
from unionflow.core.auth import CLIENT_SUBJECT_PREFIX, PASSWORD_CHANGE_CLAIM
from unionflow.core.email import normaliser_email
from unionflow.core.errors import Conflict, InvalidInput, RegleMetier, UnionFlowError
from unionflow.core.passwords import check_strength, hash_password, verify_password
from unionflow.core.roles import Role
from unionflow.models import RefreshToken, UtilisateurLocal


class InvalidGrant(UnionFlowError):
    status, slug, title = 400, "invalid-grant", "Identifiants invalides"

    def __init__(self, detail: str = "Identifiants ou jeton de rafraîchissement invalides") -> None:
        super().__init__(detail, extra={"error": "invalid_grant", "error_description": detail})


class InvalidClient(UnionFlowError):
    """RFC 6749 §5.2: unknown client, wrong secret or revoked client."""

    status, slug, title = 401, "invalid-client", "Client invalide"

    def __init__(self, detail: str = "Client inconnu, secret invalide ou client révoqué") -> None:
        super().__init__(detail, extra={"error": "invalid_client", "error_description": detail},
                         headers={"WWW-Authenticate": 'Basic realm="unionflow"'})


class UnsupportedGrant(UnionFlowError):
    status, slug, title = 400, "unsupported-grant-type", "Type d'autorisation non supporté"

    def __init__(self) -> None:
        super().__init__("grant_type doit valoir password, refresh_token ou client_credentials",
                         extra={"error": "unsupported_grant_type"})


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class TokenService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.users = UtilisateurRepository(session)
        self.refresh_tokens = RefreshTokenRepository(session)

    async def _sign(self, subject: str, extra: dict[str, Any]) -> tuple[str, int]:
        key = await keys.ensure_signing_key(self.session)
        now = int(_now().timestamp())
        ttl = self.settings.access_token_ttl_seconds
        claims: dict[str, Any] = {
            "iss": self.settings.issuer,
            "aud": self.settings.token_audience,
            "sub": subject,
            "iat": now,
            "nbf": now,
            "exp": now + ttl,
            "jti": secrets.token_urlsafe(12),
            "typ": "Bearer",
            **extra,
        }
        token = jwt.encode(claims, key.private_pem, algorithm="RS256", headers={"kid": key.kid})
        return token, ttl

    async def access_token(self, user: UtilisateurLocal) -> tuple[str, int]:
        claims: dict[str, Any] = {
            "email": user.email,
            "email_verified": user.email_verified,
            "preferred_username": user.username,
            "given_name": user.prenom,
            "family_name": user.nom,
            "realm_access": {"roles": sorted(user.realm_roles or [])},
        }
        if user.password_change_required:
            # In the token, not looked up per request: such a token only allows the password change, after
            # which the account signs in again (the change revokes its refresh tokens).
            claims[PASSWORD_CHANGE_CLAIM] = True
        return await self._sign(str(user.id), claims)

    async def client_credentials_grant(self, client_id: str, client_secret: str) -> TokenResponse:
        """Roles and organisations are not put in the token: core/auth.py reads them from the client's row on
        every request, so a revocation or a narrowed scope applies before the token expires."""
        client = await ClientApiRepository(self.session).by_client_id(client_id)
        valid = verify_password(client.secret_hash if client else None, client_secret)
        if client is None or not valid or not client.actif:
            raise InvalidClient()
        client.derniere_utilisation = _now()
        access, ttl = await self._sign(CLIENT_SUBJECT_PREFIX + client.client_id, {
            "client_id": client.client_id, "preferred_username": f"Client API {client.nom} ({client.client_id})"})
        return TokenResponse(access_token=access, expires_in=ttl, scope="")

    async def _issue(self, user: UtilisateurLocal, family_id: uuid.UUID | None = None) -> TokenResponse:
        access, ttl = await self.access_token(user)
        raw_refresh = secrets.token_urlsafe(48)
        refresh_ttl = self.settings.refresh_token_ttl_seconds
        self.refresh_tokens.add(RefreshToken(
            user_id=user.id, token_hash=_hash(raw_refresh), family_id=family_id or uuid.uuid4(),
            expires_at=_now() + timedelta(seconds=refresh_ttl),
        ))
        return TokenResponse(access_token=access, expires_in=ttl, refresh_token=raw_refresh,
                             refresh_expires_in=refresh_ttl)

    async def password_grant(self, email: str, password: str) -> TokenResponse:
        user = await self.users.by_email(email)
        valid = verify_password(user.password_hash if user else None, password)
        if user is None or not valid or not user.enabled:
            raise InvalidGrant()
        user.last_login_at = _now()
        return await self._issue(user)

    async def refresh_grant(self, raw_refresh: str) -> TokenResponse | InvalidGrant:
        """The failure is returned, not raised: revoking a leaked token family must be committed even though
        the grant is refused (raising would roll the revocation back with the request)."""
        stored = await self.refresh_tokens.by_hash_for_update(_hash(raw_refresh))
        if stored is None or stored.expires_at <= _now():
            return InvalidGrant()
        if stored.revoked_at is not None:
            # Reuse of a rotated token means it leaked: end the whole family (RFC 9700 §4.14.2).
            await self.refresh_tokens.revoke_family(stored.family_id, _now())
            return InvalidGrant()
        user = await self.users.by_id(stored.user_id)
        if user is None or not user.enabled:
            return InvalidGrant()
        stored.revoked_at = _now()
        return await self._issue(user, stored.family_id)


async def create_local_user(
    session: AsyncSession,
    *,
    email: str,
    password: str | None,
    roles: list[str],
    prenom: str | None = None,
    nom: str | None = None,
    enabled: bool = True,
    check_password: bool = True,
    password_change_required: bool = False,
) -> UtilisateurLocal:
    users = UtilisateurRepository(session)
    try:
        # The same syntax as the API (CLI and bootstrap accounts included), case-insensitive like the login.
        email = normaliser_email(email).lower()
    except ValueError as error:
        raise InvalidInput(f"email: {error}") from None
    if await users.by_email(email) is not None:
        raise Conflict(f"Un utilisateur existe déjà avec l'e-mail {email}")
    unknown = [r for r in roles if r not in Role.__members__]
    if unknown:
        raise RegleMetier(f"Rôles inconnus: {', '.join(unknown)}")
    if password is not None and check_password and (why := check_strength(password)):
        raise RegleMetier(why)
    user = UtilisateurLocal(
        email=email, username=email, prenom=prenom, nom=nom, enabled=enabled,
        password_hash=hash_password(password) if password else None,
        password_changed_at=_now() if password else None, realm_roles=sorted(set(roles)),
        password_change_required=password_change_required,
    )
    users.add(user)
    await session.flush()
    return user
