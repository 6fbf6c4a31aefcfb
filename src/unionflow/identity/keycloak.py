"""Keycloak implementation of the identity-provider interface, through the Admin REST API.

The service authenticates as a confidential client with a service account (client-credentials grant) and
caches that token until shortly before it expires. Keycloak unreachable → 503, Keycloak 5xx → 502.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from unionflow.config import Settings
from unionflow.core.errors import Conflict, InvalidInput, NotFound, UpstreamError, UpstreamUnavailable
from unionflow.identity.provider import IdentityUser, NewUser, RealmRole, check_user_id

TIMEOUT_SECONDS = 10.0
# Refresh the service-account token this long before Keycloak says it expires.
TOKEN_MARGIN_SECONDS = 30

_TO_KEYCLOAK = {"email": "email", "first_name": "firstName", "last_name": "lastName", "enabled": "enabled",
                "email_verified": "emailVerified"}


def _message(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    if isinstance(body, dict):
        for key in ("errorMessage", "error_description", "error"):
            if body.get(key):
                return str(body[key])
    return None


def _to_identity(rep: dict[str, Any]) -> IdentityUser:
    created = rep.get("createdTimestamp")
    return IdentityUser(
        id=str(rep["id"]), username=str(rep.get("username", "")), email=rep.get("email"),
        first_name=rep.get("firstName"), last_name=rep.get("lastName"), enabled=bool(rep.get("enabled", False)),
        email_verified=bool(rep.get("emailVerified", False)),
        created_at=datetime.fromtimestamp(created / 1000, UTC) if isinstance(created, int | float) else None,
    )


class KeycloakAdmin:
    """HTTP access to one realm's Admin REST API, with the service-account token cached per worker."""

    def __init__(self, settings: Settings) -> None:
        assert settings.keycloak_admin_url and settings.keycloak_realm
        base = settings.keycloak_admin_url.rstrip("/")
        realm = quote(settings.keycloak_realm, safe="")
        self.token_url = f"{base}/realms/{realm}/protocol/openid-connect/token"
        self.admin_url = f"{base}/admin/realms/{realm}"
        self.client_id = settings.keycloak_admin_client_id or ""
        self.client_secret = settings.keycloak_admin_client_secret or ""
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    async def _post_token(self, form: dict[str, str]) -> httpx.Response:
        try:
            async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as client:
                response = await client.post(self.token_url, data=form)
        except httpx.TransportError as exc:
            raise UpstreamUnavailable("Le fournisseur d'identité est injoignable") from exc
        if response.status_code >= 500:
            raise UpstreamError(f"Le fournisseur d'identité a répondu {response.status_code}")
        return response

    async def _service_token(self, *, renew: bool = False) -> str:
        async with self._lock:
            if renew or self._token is None or time.monotonic() >= self._expires_at:
                response = await self._post_token({"grant_type": "client_credentials", "client_id": self.client_id,
                                                   "client_secret": self.client_secret})
                if response.status_code != 200:
                    raise UpstreamError("Le fournisseur d'identité a refusé le compte de service de UnionFlow")
                body = response.json()
                self._token = str(body["access_token"])
                ttl = float(body.get("expires_in", 60))
                self._expires_at = time.monotonic() + max(ttl - TOKEN_MARGIN_SECONDS, ttl / 2)
            return self._token

    async def call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                   json: Any = None) -> httpx.Response:
        """One Admin API call; a 401 (token revoked or expired early) renews the token and retries once."""
        for attempt in range(2):
            token = await self._service_token(renew=attempt > 0)
            try:
                async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as client:
                    response = await client.request(method, self.admin_url + path, params=params, json=json,
                                                    headers={"Authorization": f"Bearer {token}"})
            except httpx.TransportError as exc:
                raise UpstreamUnavailable("Le fournisseur d'identité est injoignable") from exc
            if response.status_code != 401:
                break
        if response.status_code >= 500:
            raise UpstreamError(f"Le fournisseur d'identité a répondu {response.status_code}")
        if response.status_code == 404:
            raise NotFound("Utilisateur introuvable")
        if response.status_code == 409:
            raise Conflict(_message(response) or "Un utilisateur existe déjà avec cet identifiant ou cet e-mail")
        if response.status_code == 400:
            raise InvalidInput(_message(response) or "Refusé par le fournisseur d'identité")
        if response.status_code in (401, 403):
            raise UpstreamError("Le compte de service de UnionFlow n'a pas les droits d'administration requis")
        if response.status_code >= 300:
            raise UpstreamError(f"Réponse inattendue du fournisseur d'identité ({response.status_code})")
        return response

    async def password_grant(self, username: str, password: str) -> bool:
        response = await self._post_token({"grant_type": "password", "client_id": self.client_id,
                                           "client_secret": self.client_secret, "username": username,
                                           "password": password, "scope": "openid"})
        if response.status_code == 200:
            return True
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            error = None
        if response.status_code == 401 or error == "invalid_grant":
            return False
        raise UpstreamError("Le fournisseur d'identité ne permet pas de vérifier le mot de passe actuel "
                            "(activer « Direct access grants » sur le client d'administration)")


class KeycloakProvider:
    kind = "keycloak"

    def __init__(self, admin: KeycloakAdmin) -> None:
        self.admin = admin

    @staticmethod
    def _user_path(user_id: str) -> str:
        return "/users/" + check_user_id(user_id)

    async def search(self, search: str | None, first: int, max_results: int) -> list[IdentityUser]:
        params: dict[str, Any] = {"first": first, "max": max_results, "briefRepresentation": "true"}
        if search:
            params["search"] = search
        response = await self.admin.call("GET", "/users", params=params)
        return [_to_identity(rep) for rep in response.json()]

    async def count(self, search: str | None) -> int:
        response = await self.admin.call("GET", "/users/count", params={"search": search} if search else None)
        return int(response.json())

    async def get(self, user_id: str) -> IdentityUser:
        user = _to_identity((await self.admin.call("GET", self._user_path(user_id))).json())
        user.realm_roles = await self.user_roles(user_id)
        return user

    async def create(self, user: NewUser) -> IdentityUser:
        rep: dict[str, Any] = {"username": user.username, "email": user.email, "firstName": user.first_name,
                               "lastName": user.last_name, "enabled": user.enabled,
                               "emailVerified": user.email_verified}
        if user.password:
            rep["credentials"] = [{"type": "password", "value": user.password, "temporary": False}]
        response = await self.admin.call("POST", "/users", json=rep)
        # Keycloak answers 201 with an empty body; the new id is the last segment of Location.
        location = response.headers.get("Location", "")
        user_id = urlsplit(location).path.rstrip("/").rsplit("/", 1)[-1]
        if not location or not user_id:
            raise UpstreamError("Le fournisseur d'identité n'a pas renvoyé l'identifiant du nouvel utilisateur")
        if user.realm_roles:
            await self.add_roles(user_id, user.realm_roles)
        return await self.get(user_id)

    async def update(self, user_id: str, changes: dict[str, Any]) -> IdentityUser:
        rep = {_TO_KEYCLOAK[k]: v for k, v in changes.items() if k in _TO_KEYCLOAK}
        if rep:
            await self.admin.call("PUT", self._user_path(user_id), json=rep)
        if changes.get("enabled") is False:
            await self.admin.call("POST", self._user_path(user_id) + "/logout")
        return await self.get(user_id)

    async def _role_reps(self) -> list[dict[str, Any]]:
        return list((await self.admin.call("GET", "/roles", params={"briefRepresentation": "true"})).json())

    async def realm_roles(self) -> list[RealmRole]:
        return [RealmRole(name=r["name"], description=r.get("description"), id=r.get("id"))
                for r in await self._role_reps()]

    async def user_roles(self, user_id: str) -> list[str]:
        response = await self.admin.call("GET", self._user_path(user_id) + "/role-mappings/realm")
        return sorted(str(r["name"]) for r in response.json())

    async def _reps_for(self, roles: list[str]) -> list[dict[str, Any]]:
        by_name = {r["name"]: r for r in await self._role_reps()}
        missing = [r for r in roles if r not in by_name]
        if missing:
            raise InvalidInput(f"Rôles inconnus du fournisseur d'identité: {', '.join(missing)}")
        return [{"id": by_name[r]["id"], "name": r} for r in roles]

    async def add_roles(self, user_id: str, roles: list[str]) -> None:
        if roles:
            await self.admin.call("POST", self._user_path(user_id) + "/role-mappings/realm",
                                  json=await self._reps_for(roles))

    async def remove_roles(self, user_id: str, roles: list[str]) -> None:
        if roles:
            await self.admin.call("DELETE", self._user_path(user_id) + "/role-mappings/realm",
                                  json=await self._reps_for(roles))

    async def reset_password(self, user_id: str, password: str, *, temporary: bool = False) -> None:
        await self.admin.call("PUT", self._user_path(user_id) + "/reset-password",
                              json={"type": "password", "value": password, "temporary": temporary})
        # Other devices keep their refresh tokens otherwise: the change must end them.
        await self.admin.call("POST", self._user_path(user_id) + "/logout")

    async def check_password(self, user_id: str, username: str, password: str) -> bool:
        return await self.admin.password_grant(username, password)
