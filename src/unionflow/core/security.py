"""Token verification for both identity sources, on one path.

Built-in issuer: RS256 keys kept in the database. External issuer (Keycloak or any OIDC provider): its JWKS,
cached, refreshed in the background when old, refetched on an unknown ``kid`` at most once per cooldown
(``KeySet``). An issuer is compared exactly as configured (OIDC Discovery §3: no trailing-slash normalisation).
Only asymmetric algorithms are accepted; ``exp``, ``iss``, ``aud`` and ``sub`` are required.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx
import jwt
from jwt import PyJWK

from unionflow.config import Settings
from unionflow.core.errors import RETRY_AFTER_SECONDS, InvalidToken, ServiceUnavailable

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
LEEWAY_SECONDS = 30

log = logging.getLogger("unionflow.security")


@dataclass
class KeySet:
    """Public keys of one issuer by ``kid``, fetched through ``loader``.

    One fetch at a time (concurrent requests share it), and never while it is not due:
    - keys older than ``max_age`` keep serving while ONE background refresh runs: a hung provider delays no
      request whose key is known;
    - an unknown ``kid`` (rotation) waits for a fetch, at most once per ``cooldown`` after a successful one;
    - a failed fetch is logged at WARNING naming the issuer and backs off (``cooldown`` doubling up to
      ``MAX_BACKOFF``), the timer starting again at each failure, so an outage costs one fetch per backoff
      instead of one per request. Without any key, or for an unknown ``kid`` after a failure, the answer is 503:
      the token may well be valid, and a 401 would make clients drop it.
    """

    loader: Callable[[], Awaitable[list[dict[str, Any]]]]
    cooldown: float
    max_age: float
    retry_after: int = RETRY_AFTER_SECONDS
    issuer: str = ""
    # First delay after a failed fetch, doubling per consecutive failure (None: the cooldown). The built-in
    # issuer's keys come from the database, whose outages have their own bounds (503 + Retry-After): 0 there, so
    # the first request after recovery fetches them.
    backoff: float | None = None
    keys: dict[str, PyJWK] = field(default_factory=dict)
    fetched_at: float | None = None
    failures: int = 0
    next_attempt_at: float = 0.0
    _task: asyncio.Task[bool] | None = field(default=None, repr=False)

    MAX_BACKOFF: ClassVar[float] = 300.0

    async def get(self, kid: str | None) -> PyJWK:
        now = time.monotonic()
        known = kid in self.keys or (kid is None and len(self.keys) == 1)
        if not self.keys:
            if not await self._fetch_now(now):
                raise self._unavailable()
        elif not known:
            since_success = now - self.fetched_at if self.fetched_at is not None else float("inf")
            if self._running() or (since_success > self.cooldown and now >= self.next_attempt_at):
                await self._fetch_now(now)
            elif self.failures:
                raise self._unavailable()
        elif self._stale(now) and now >= self.next_attempt_at:
            self._start()  # in the background: the known key answers now
        if kid is None and len(self.keys) == 1:
            return next(iter(self.keys.values()))
        key = self.keys.get(kid or "")
        if key is None:
            if self.failures:
                raise self._unavailable()
            raise InvalidToken("Clé de signature inconnue")
        return key

    def _stale(self, now: float) -> bool:
        return self.fetched_at is None or now - self.fetched_at > self.max_age

    def _running(self) -> bool:
        task = self._task
        # A task of another event loop (tests run several) is not ours to wait for.
        return task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop()

    def _start(self) -> asyncio.Task[bool]:
        if not self._running():
            self._task = asyncio.get_running_loop().create_task(self._refresh())
        assert self._task is not None
        return self._task

    async def _fetch_now(self, now: float) -> bool:
        """Wait for the shared fetch (started if due); False when it failed or was not due after a failure."""
        if not self._running() and now < self.next_attempt_at:
            return False
        # Shielded: a client that goes away must not cancel the fetch the other requests wait for.
        return await asyncio.shield(self._start())

    def _unavailable(self) -> ServiceUnavailable:
        return ServiceUnavailable("Clés de signature momentanément indisponibles, réessayer plus tard",
                                  retry_after=self.retry_after, slug="signing-keys-unavailable")

    async def _refresh(self) -> bool:
        try:
            jwks = await self.loader()
        except Exception as exc:
            self.failures += 1
            base = max(self.cooldown, 1.0) if self.backoff is None else self.backoff
            backoff = min(base * 2 ** (self.failures - 1), self.MAX_BACKOFF)
            self.next_attempt_at = time.monotonic() + backoff
            age = "none cached" if self.fetched_at is None else \
                f"serving keys fetched {time.monotonic() - self.fetched_at:.0f} s ago"
            log.warning("signing keys of issuer %s could not be fetched (%s: %s); %s; next attempt in %.0f s "
                        "(failure %d)", self.issuer or "?", type(exc).__name__, str(exc) or repr(exc), age,
                        backoff, self.failures)
            return False
        keys: dict[str, PyJWK] = {}
        for jwk in jwks:
            if jwk.get("use", "sig") != "sig":
                continue
            try:
                keys[str(jwk.get("kid", ""))] = PyJWK(jwk)
            except jwt.PyJWTError:
                continue
        if self.failures:
            log.info("signing keys of issuer %s fetched again after %d failure(s)", self.issuer or "?",
                     self.failures)
        self.keys = keys
        self.fetched_at = time.monotonic()
        self.failures = 0
        self.next_attempt_at = 0.0
        return True


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
            raise InvalidToken("Jeton illisible") from exc
        alg = header.get("alg")
        if alg not in ASYMMETRIC_ALGORITHMS:
            raise InvalidToken("Algorithme de signature refusé")
        issuer = self._issuers.get(str(unverified.get("iss", "")))
        if issuer is None:
            raise InvalidToken("Émetteur du jeton non reconnu")
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
            raise InvalidToken("Jeton expiré") from exc
        except jwt.PyJWTError as exc:
            raise InvalidToken("Jeton invalide") from exc
        if issuer.audience is None and "aud" not in claims:
            raise InvalidToken("Jeton invalide: audience manquante")
        return claims


def realm_roles(claims: dict[str, Any]) -> frozenset[str]:
    access = claims.get("realm_access") or {}
    roles = access.get("roles") if isinstance(access, dict) else None
    return frozenset(str(r) for r in roles) if isinstance(roles, list) else frozenset()


def build_verifier(settings: Settings, builtin_loader: Callable[[], Awaitable[list[dict[str, Any]]]]) -> TokenVerifier:
    issuers: list[Issuer] = []
    if settings.builtin_idp_enabled:
        issuers.append(Issuer(settings.issuer, settings.token_audience,
                              KeySet(builtin_loader, cooldown=5, max_age=3600, backoff=0,
                                     retry_after=settings.database_retry_after_seconds, issuer=settings.issuer)))
    if settings.oidc_issuer:
        # The issuer exactly as configured: `iss` must equal it byte for byte (a provider whose issuer is
        # "https://host/" is refused if we compare "https://host"). Only the default JWKS URL is built from it.
        jwks_url = settings.oidc_jwks_url or settings.oidc_issuer.rstrip("/") + "/protocol/openid-connect/certs"
        issuers.append(Issuer(
            settings.oidc_issuer,
            settings.oidc_audience or settings.token_audience,
            KeySet(http_jwks_loader(jwks_url, settings.jwks_fetch_timeout_seconds),
                   cooldown=settings.jwks_refetch_cooldown_seconds, max_age=settings.jwks_cache_seconds,
                   issuer=settings.oidc_issuer),
        ))
    return TokenVerifier(issuers)
