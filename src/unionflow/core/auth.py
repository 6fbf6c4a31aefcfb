"""Who is calling, which roles they hold in the active organisation, and what they may see.

Rules (docs/authorization.md): effective roles = realm roles from the token + the roles of the caller's
membership in the active organisation. ``X-Active-Organisation-Id`` picks that organisation (the caller
must be a member of it, SUPER_ADMIN/ADMIN excepted); without it, a caller with exactly one membership
works in that one. ``X-Active-Role`` narrows the effective roles to one role the caller holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from unionflow.core.db import autocommit_connection, principal_bind
from unionflow.core.errors import Forbidden, InvalidToken, RegleMetier, Unauthenticated
from unionflow.core.permissions import Permission, granted, permissions_of, roles_for
from unionflow.core.principal_cache import PrincipalCache, is_missing
from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_STAFF_ROLES, Role, RoleSet
from unionflow.core.security import TokenVerifier, realm_roles
from unionflow.models import ClientApi, Membre, MembreOrganisation, Organisation
from unionflow.models.membre import StatutAppartenance

T = TypeVar("T")

# Subject of the tokens the built-in issuer gives API clients (client credentials grant).
CLIENT_SUBJECT_PREFIX = "client:"
# Claim of a built-in token whose account must change a password set by someone else (auth/service.py).
PASSWORD_CHANGE_CLAIM = "pwd_change_required"

bearer_scheme = HTTPBearer(scheme_name="IdentityProvider", auto_error=False,
                           description="Jeton OIDC (JWT) du fournisseur d'identité intégré ou externe. Jeton "
                                       "refusé: 401 avec `WWW-Authenticate: Bearer realm=\"unionflow\", "
                                       "error=\"invalid_token\"`. Compte dont le mot de passe a été fixé par un "
                                       "administrateur: 403 `mot-de-passe-a-changer` partout sauf `PUT "
                                       "/api/membres/me/mot-de-passe`.")

ACTIVE_ORGANISATION_REQUIRED = ("Vous êtes membre de plusieurs organisations: précisez celle pour laquelle vous "
                                "agissez avec l'en-tête X-Active-Organisation-Id")


def person_key(issuer: str | None, sub: str) -> str:
    """A person, (issuer, subject), as one text: ``"<issuer> <subject>"``. An issuer is a URL, which holds no
    space, so two issuers never give one key to two people even when their subjects collide (documents, favourites,
    tickets, feedback, approvals, tasks and idempotency keys store it; migration 0021_durcir_personne). A context
    without issuer (built by the code, never from a token) keys by its subject alone."""
    return f"{issuer} {sub}" if issuer else sub


@dataclass(frozen=True)
class AuthContext:
    """``sub`` with ``issuer`` names the person: two issuers may give one subject to two people."""

    sub: str
    email: str | None
    username: str | None
    realm_roles: frozenset[str]
    roles: frozenset[str]
    membre_id: uuid.UUID | None = None
    memberships: dict[uuid.UUID, frozenset[str]] = field(default_factory=dict)
    active_organisation_id: uuid.UUID | None = None
    active_role: str | None = None
    ip_address: str | None = None
    user_agent: str | None = None
    claims: dict[str, Any] = field(default_factory=dict, repr=False)
    issuer: str | None = None
    password_change_required: bool = False

    @property
    def is_global(self) -> bool:
        """SUPER_ADMIN and ADMIN see every record."""
        return not self.roles.isdisjoint(GLOBAL_ROLES)

    @property
    def staff_organisations(self) -> frozenset[uuid.UUID]:
        """Organisations whose records the caller sees through an organisation role (treasurer, ...)."""
        if not self.roles & ORGANISATION_STAFF_ROLES:
            return frozenset()
        if self.active_organisation_id is not None:
            return frozenset({self.active_organisation_id})
        realm_staff = bool(self.realm_roles & ORGANISATION_STAFF_ROLES)
        return frozenset(org for org, roles in self.memberships.items()
                         if realm_staff or roles & ORGANISATION_STAFF_ROLES)

    @property
    def member_organisations(self) -> frozenset[uuid.UUID]:
        return frozenset(self.memberships)

    def roles_in(self, organisation_id: uuid.UUID | None) -> frozenset[str]:
        """Roles with which the caller acts on a record of ``organisation_id`` (core/permissions.py)."""
        return roles_for(organisation_id, realm_roles=self.realm_roles, memberships=self.memberships,
                         active_organisation_id=self.active_organisation_id, active_role=self.active_role)

    def can(self, permission: Permission, organisation_id: uuid.UUID | None) -> bool:
        return granted(permission, organisation_id, realm_roles=self.realm_roles, memberships=self.memberships,
                       active_organisation_id=self.active_organisation_id, active_role=self.active_role)

    def require(self, permission: Permission, organisation_id: uuid.UUID | None, reason: str | None = None) -> None:
        """403 with a French reason when the caller may see the record but not do this to it; 400 naming
        ``X-Active-Organisation-Id`` when a role of that organisation would allow it but the caller, member of
        several organisations, did not say for which one he acts (never a silent loss of his staff role)."""
        if self.can(permission, organisation_id):
            return
        if self.needs_active_organisation(self._membership_permissions(organisation_id),
                                          permission):
            raise RegleMetier(ACTIVE_ORGANISATION_REQUIRED, extra={"permission": permission.value})
        raise Forbidden(reason or f"Vous n'avez pas la permission « {permission.value} » pour cette organisation",
                        extra={"permission": permission.value})

    def can_here(self, permission: Permission, organisation_id: uuid.UUID | None) -> bool:
        """``can``, but a caller of several organisations whose role there would allow it is asked for
        ``X-Active-Organisation-Id`` (400) instead of silently taking the path of someone without it."""
        if self.can(permission, organisation_id):
            return True
        if self.needs_active_organisation(self._membership_permissions(organisation_id),
                                          permission):
            raise RegleMetier(ACTIVE_ORGANISATION_REQUIRED, extra={"permission": permission.value})
        return False

    def _membership_permissions(self, organisation_id: uuid.UUID | None) -> frozenset[Permission]:
        return permissions_of(self.memberships.get(organisation_id, frozenset()) if organisation_id else frozenset())

    def needs_active_organisation(self, held: frozenset[Any], wanted: Any) -> bool:
        """Caller of several organisations, no active one, no active role: ``wanted`` is among ``held``."""
        return (self.active_organisation_id is None and self.active_role is None and len(self.memberships) > 1
                and wanted in held)

    @property
    def personne(self) -> str:
        """The person as one text (``person_key``): what a row tied to its owner stores and is compared with."""
        return person_key(self.issuer, self.sub)

    @property
    def actor_name(self) -> str:
        return self.email or self.username or self.sub


def _parse_uuid(value: str, header: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise Forbidden(f"{header} invalide") from exc


async def resolve_context(request: Request, claims: dict[str, Any]) -> AuthContext:
    sub = str(claims["sub"])
    email = claims.get("email")
    email = str(email).lower() if email else None
    realm = frozenset(r for r in realm_roles(claims) if r in Role.__members__)

    settings = request.app.state.settings
    builtin = settings.builtin_idp_enabled and claims.get("iss") == settings.issuer
    membre_id: uuid.UUID | None
    if builtin and sub.startswith(CLIENT_SUBJECT_PREFIX):
        realm, memberships = await _client_scope(request, sub.removeprefix(CLIENT_SUBJECT_PREFIX))
        membre_id = None
    else:
        trust_email = builtin or claims.get("email_verified") is True
        membre_id, memberships = await _member_scope(request, str(claims.get("iss")), sub, email, trust_email)
    return await _context(request, claims, sub, email, realm, membre_id, memberships)


# Prebuilt statements (docs/architecture.md, "Hot paths"): compiled once, run on a short autocommit connection.
_CLIENT = select(ClientApi.actif, ClientApi.roles, ClientApi.organisation_ids).where(
    ClientApi.client_id == bindparam("client_id"))
_MEMBER_COLUMNS = select(Membre.id, Membre.user_iss, Membre.user_sub, MembreOrganisation.organisation_id,
                         MembreOrganisation.roles).outerjoin(
    MembreOrganisation,
    (MembreOrganisation.membre_id == Membre.id) & (MembreOrganisation.statut == StatutAppartenance.ACTIF))
# A member is linked to a person, (issuer, subject): never to a subject alone, which another issuer may give to
# someone else.
_LINKED = (Membre.user_iss == bindparam("iss")) & (Membre.user_sub == bindparam("sub"))
_MEMBER_BY_SUB = _MEMBER_COLUMNS.where(_LINKED)
# Linking by e-mail trusts the address: built-in addresses are set by administrators, an external
# provider's only when it says it verified them; a member already linked to another account never matches.
_MEMBER_BY_SUB_OR_EMAIL = _MEMBER_COLUMNS.where(
    or_(_LINKED, (Membre.email == bindparam("email")) & Membre.user_sub.is_(None)))
_ORGANISATION_EXISTS = select(Organisation.id).where(Organisation.id == bindparam("id"))


def _cache(request: Request) -> PrincipalCache:
    cache: PrincipalCache = request.app.state.principal_cache
    return cache


async def _lookup(request: Request, key: tuple[Any, ...], load: Callable[[AsyncConnection], Awaitable[T]],
                  keep: Callable[[T], bool] = lambda _value: True) -> T:
    """Cache-aside read of what decides a principal: from the principal cache, or by ``load`` on a short
    autocommit connection of authentication's own pool. A value read while a write invalidated the cache is not
    stored (generation), so a lookup that saw the old rows cannot re-cache them."""
    cache = _cache(request)
    found = cache.get(key)
    if not is_missing(found):
        value: T = found
        return value
    generation = cache.generation
    async with autocommit_connection(principal_bind(request)) as connection:
        value = await load(connection)
    if keep(value):
        cache.put(key, value, generation)
    return value


async def _client_scope(request: Request,
                        client_id: str) -> tuple[frozenset[str], dict[uuid.UUID, frozenset[str]]]:
    """An API client has no member record: its roles are realm roles (as a Keycloak deployment grants
    ADMIN_ORGANISATION at realm level) and its organisations are memberships holding its organisation roles,
    so it acts only there, through the same rules as a person. Revocation takes effect at once in this process
    and within the principal cache's bound elsewhere (core/principal_cache.py)."""

    async def load(connection: AsyncConnection) -> tuple[frozenset[str], dict[uuid.UUID, frozenset[str]]]:
        client = (await connection.execute(_CLIENT, {"client_id": client_id})).first()
        if client is None or not client.actif:
            raise InvalidToken("Client API révoqué ou inconnu")
        roles = frozenset(r for r in client.roles if r in Role.__members__)
        org_roles = roles - GLOBAL_ROLES
        return roles, ({uuid.UUID(org): org_roles for org in client.organisation_ids} if org_roles else {})

    roles, memberships = await _lookup(request, ("client", client_id), load)
    return roles, dict(memberships)


async def _member_scope(request: Request, issuer: str, sub: str, email: str | None,
                        trust_email: bool) -> tuple[uuid.UUID | None, dict[uuid.UUID, frozenset[str]]]:
    linked_email = email if email and trust_email else None

    async def load(connection: AsyncConnection) -> tuple[uuid.UUID | None, dict[uuid.UUID, frozenset[str]]]:
        if linked_email:
            result = await connection.execute(_MEMBER_BY_SUB_OR_EMAIL,
                                              {"iss": issuer, "sub": sub, "email": linked_email})
        else:
            result = await connection.execute(_MEMBER_BY_SUB, {"iss": issuer, "sub": sub})
        rows = list(result.all())
        # A member linked to this account wins over one merely sharing the e-mail address.
        rows.sort(key=lambda r: (r.user_iss, r.user_sub) != (issuer, sub))
        membre_id = rows[0].id if rows else None
        return membre_id, {r.organisation_id: frozenset(r.roles or ()) for r in rows
                           if r.id == membre_id and r.organisation_id is not None}

    membre_id, memberships = await _lookup(request, ("member", issuer, sub, linked_email), load)
    return membre_id, dict(memberships)


async def _organisation_exists(request: Request, organisation_id: uuid.UUID) -> bool:
    """For a global role naming an organisation it is not a member of. Only existing ones are cached: an
    organisation deletion empties the cache like any write deciding a principal."""

    async def load(connection: AsyncConnection) -> bool:
        return (await connection.execute(_ORGANISATION_EXISTS, {"id": organisation_id})).first() is not None

    return await _lookup(request, ("organisation", organisation_id), load, keep=bool)


async def _context(request: Request, claims: dict[str, Any], sub: str, email: str | None,
                   realm: frozenset[str], membre_id: uuid.UUID | None,
                   memberships: dict[uuid.UUID, frozenset[str]]) -> AuthContext:
    is_global = not realm.isdisjoint(GLOBAL_ROLES)
    active_org: uuid.UUID | None = None
    header_org = request.headers.get("X-Active-Organisation-Id")
    if header_org:
        active_org = _parse_uuid(header_org.strip(), "X-Active-Organisation-Id")
        if active_org not in memberships and (not is_global or not await _organisation_exists(request, active_org)):
            raise Forbidden("Vous n'êtes pas membre de l'organisation active demandée")
    elif len(memberships) == 1:
        active_org = next(iter(memberships))

    org_roles: frozenset[str]
    if active_org is not None:
        org_roles = memberships.get(active_org, frozenset())
    else:
        # Without an active organisation only the personal role of a member applies (an API client has none).
        org_roles = frozenset({Role.MEMBRE.value}) if memberships and membre_id is not None else frozenset()
    effective = realm | org_roles

    active_role = request.headers.get("X-Active-Role")
    if active_role:
        active_role = active_role.strip()
        if active_role not in effective:
            raise Forbidden("Le rôle actif demandé n'est pas détenu")
        effective = frozenset({active_role})

    client = request.client
    return AuthContext(
        sub=sub, email=email, username=claims.get("preferred_username"), realm_roles=realm,
        roles=effective, membre_id=membre_id, memberships=memberships, active_organisation_id=active_org,
        active_role=active_role, ip_address=client.host if client else None,
        user_agent=(request.headers.get("user-agent") or "")[:500] or None, claims=claims,
        issuer=str(claims.get("iss")),
        password_change_required=(claims.get(PASSWORD_CHANGE_CLAIM) is True
                                  and claims.get("iss") == request.app.state.settings.issuer),
    )


class PasswordChangeRequired(Forbidden):
    slug, title = "mot-de-passe-a-changer", "Mot de passe à changer"

    def __init__(self) -> None:
        super().__init__("Votre mot de passe a été fixé par un administrateur: changez-le (PUT "
                         "/api/membres/me/mot-de-passe) puis reconnectez-vous avant toute autre opération")


class Authorizer:
    """Dependency that authenticates the caller and checks the route's role set (401, then 403)."""

    def __init__(self, role_set: RoleSet, *, before_password_change: bool = False) -> None:
        self.role_set = role_set
        self.before_password_change = before_password_change

    async def __call__(
        self,
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    ) -> AuthContext:
        context = await authenticate(request, credentials)
        if context.password_change_required and not self.before_password_change:
            raise PasswordChangeRequired()
        if not self.role_set.allows(context.roles):
            # A treasurer of A who is also a member of B, without the header, must learn why he is refused.
            held = frozenset().union(*context.memberships.values()) if context.memberships else frozenset()
            if any(context.needs_active_organisation(held, role) for role in self.role_set.roles):
                raise RegleMetier(ACTIVE_ORGANISATION_REQUIRED)
            raise Forbidden("Rôle insuffisant pour cette opération")
        return context


async def authenticate(request: Request, credentials: HTTPAuthorizationCredentials | None) -> AuthContext:
    """No ORM session: a principal cache hit does no database work, a miss one read on a short connection."""
    cached = getattr(request.state, "auth_context", None)
    if isinstance(cached, AuthContext):
        return cached
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        raise Unauthenticated("Authentification requise")
    verifier: TokenVerifier = request.app.state.token_verifier
    claims = await verifier.verify(credentials.credentials)
    context = await resolve_context(request, claims)
    request.state.auth_context = context
    return context


def authorize(role_set: RoleSet, *, before_password_change: bool = False) -> Any:
    """``auth: AuthContext = authorize(RS_READ)`` — the one place a route states who may call it.
    ``before_password_change``: also open to an account whose password must first be changed (the change)."""
    return Depends(Authorizer(role_set, before_password_change=before_password_change))
