"""Token verification for both identity sources, on one path.

Built-in issuer: RS256 keys kept in the database. External issuer (Keycloak or any OIDC provider): its JWKS,
cached, refetched on an unknown ``kid`` at most once per cooldown. Only asymmetric algorithms are
accepted; ``exp``, ``iss``, ``aud`` and ``sub`` are required.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
from jwt import PyJWK

from unionflow.config import Settings
from unionflow.core.errors import RETRY_AFTER_SECONDS, ServiceUnavailable, Unauthenticated

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
LEEWAY_SECONDS = 30


@dataclass
class KeySet:
    """Public keys by ``kid``, refreshed through ``loader`` at most once per ``cooldown`` seconds."""

    loader: Callable[[], Awaitable[list[dict[str, Any]]]]
    cooldown: float
    max_age: float
    retry_after: int = RETRY_AFTER_SECONDS
    keys: dict[str, PyJWK] = field(default_factory=dict)
    fetched_at: float = 0.0
    failed_at: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def get(self, kid: str | None) -> PyJWK:
        now = time.monotonic()
        stale = now - self.fetched_at > self.max_age
        if (kid not in self.keys or stale) and (now - self.fetched_at > self.cooldown or not self.keys):
            async with self._lock:
                if self.failed_at > now and kid not in self.keys:
                    # A fetch failed while this request queued for the lock: answer now rather than queue
                    # every request of an outage behind one connect timeout each.
                    raise self._unavailable()
                if (kid not in self.keys or stale) and (time.monotonic() - self.fetched_at > self.cooldown
                                                        or not self.keys):
                    await self._refresh(needed=kid not in self.keys)
        if kid is None and len(self.keys) == 1:
            return next(iter(self.keys.values()))
        key = self.keys.get(kid or "")
        if key is None:
            raise Unauthenticated("Clé de signature inconnue")
        return key

    def _unavailable(self) -> ServiceUnavailable:
        return ServiceUnavailable("Clés de signature momentanément indisponibles, réessayer plus tard",
                                  retry_after=self.retry_after, slug="signing-keys-unavailable")

    async def _refresh(self, *, needed: bool) -> None:
        try:
            jwks = await self.loader()
        except Exception as exc:
            # The source of keys (database, provider's JWKS) is down: the token may well be valid, so the caller
            # is told to retry (503), never that it is unauthenticated (401: clients would drop a good token).
            # The cooldown is not consumed: the next request after recovery fetches again.
            self.failed_at = time.monotonic()
            if needed:
                raise self._unavailable() from exc
            return
        self.fetched_at = time.monotonic()
        keys: dict[str, PyJWK] = {}
        for jwk in jwks:
            if jwk.get("use", "sig") != "sig":
                continue
            try:
                keys[str(jwk.get("kid", ""))] = PyJWK(jwk)
            except jwt.PyJWTError:
                continue
        self.keys = keys


@dataclass(frozen=True)
class Issuer:
    issuer: str
    audience: str | None
    keys: KeySet


def http_jwks_loader(url: str, timeout: float = 5.0) -> Callable[[], Awaitable[list[dict[str, Any]]]]:
    async def load() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(url)
            response.raise_for_status()
            return list(response.json().get("keys", []))

    return load


class VerifiedTokens:
    """Claims of tokens whose signature and claims already passed verification, keyed by the token's SHA-256,
    kept until the token's own ``exp`` (+ the verification leeway). A token is immutable, so its verdict cannot
    change before then; this saves the RSA verification and three JSON decodes on every request. Bounded LRU per
    process; failed verifications are never stored."""

    def __init__(self, maxsize: int = 4096) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[bytes, tuple[float, dict[str, Any]]] = OrderedDict()

    def get(self, token: str) -> dict[str, Any] | None:
        key = hashlib.sha256(token.encode()).digest()
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= time.time():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return dict(entry[1])

    def put(self, token: str, claims: dict[str, Any]) -> None:
        exp = claims.get("exp")
        if not isinstance(exp, int | float):
            return
        self._entries[hashlib.sha256(token.encode()).digest()] = (float(exp) + LEEWAY_SECONDS, dict(claims))
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)


class TokenVerifier:
    def __init__(self, issuers: list[Issuer], cache_size: int = 4096) -> None:
        self._issuers = {i.issuer: i for i in issuers}
        self._verified = VerifiedTokens(cache_size)

    async def verify(self, token: str) -> dict[str, Any]:
        cached = self._verified.get(token)
        if cached is not None:
            return cached
        claims = await self._verify(token)
        self._verified.put(token, claims)
        return claims

    async def verify_id_token(self, token: str, client_id: str) -> dict[str, Any]:
        """An OpenID Connect id_token of a known issuer (console sign-in): the same keys, algorithms and checks as
        an access token, its audience being the client it was issued to."""
        return await self._verify(token, audience=client_id)

    async def _verify(self, token: str, audience: str | None = None) -> dict[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except (jwt.PyJWTError, json.JSONDecodeError, ValueError) as exc:
            raise Unauthenticated("Jeton illisible") from exc
        alg = header.get("alg")
        if alg not in ASYMMETRIC_ALGORITHMS:
            raise Unauthenticated("Algorithme de signature refusé")
        issuer = self._issuers.get(str(unverified.get("iss", "")))
        if issuer is None:
            raise Unauthenticated("Émetteur du jeton non reconnu")
        key = await issuer.keys.get(header.get("kid"))
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key.key,
                algorithms=[alg],
                audience=audience or issuer.audience,
                issuer=issuer.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud", "sub"],
                         "verify_aud": (audience or issuer.audience) is not None},
            )
        except jwt.ExpiredSignatureError as exc:
            raise Unauthenticated("Jeton expiré") from exc
        except jwt.PyJWTError as exc:
            raise Unauthenticated("Jeton invalide") from exc
        if issuer.audience is None and "aud" not in claims:
            raise Unauthenticated("Jeton invalide: audience manquante")
        return claims


def realm_roles(claims: dict[str, Any]) -> frozenset[str]:
    access = claims.get("realm_access") or {}
    roles = access.get("roles") if isinstance(access, dict) else None
    return frozenset(str(r) for r in roles) if isinstance(roles, list) else frozenset()


def build_verifier(settings: Settings, builtin_loader: Callable[[], Awaitable[list[dict[str, Any]]]]) -> TokenVerifier:
    issuers: list[Issuer] = []
    if settings.builtin_idp_enabled:
        issuers.append(Issuer(settings.issuer, settings.token_audience,
                              KeySet(builtin_loader, cooldown=5, max_age=3600,
                                     retry_after=settings.database_retry_after_seconds)))
    if settings.oidc_issuer:
        jwks_url = settings.oidc_jwks_url or settings.oidc_issuer.rstrip("/") + "/protocol/openid-connect/certs"
        issuers.append(Issuer(
            settings.oidc_issuer.rstrip("/") if settings.oidc_issuer.endswith("/") else settings.oidc_issuer,
            settings.oidc_audience or settings.token_audience,
            KeySet(http_jwks_loader(jwks_url), cooldown=settings.jwks_refetch_cooldown_seconds,
                   max_age=settings.jwks_cache_seconds),
        ))
    return TokenVerifier(issuers)
