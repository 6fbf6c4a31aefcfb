"""Console sign-in at the external OIDC provider: authorization code flow with PKCE (RFC 7636, S256).

The provider is the one the API already trusts (``UNIONFLOW_OIDC_ISSUER``); the console is its client
``UNIONFLOW_OIDC_CLIENT_ID``. Endpoints come from the issuer's discovery document. What the flow must remember
between the redirect and the return (state, nonce, PKCE verifier, where to go next) travels in a short-lived cookie
encrypted like the session (no server-side store: any worker can finish the flow). The tokens obtained are checked
by the API's own ``TokenVerifier`` (the access token exactly as a bearer token of the API is; the id_token with the
same keys, its audience the client and its nonce ours), then become the same console session as a built-in
sign-in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlencode, urlparse

import httpx
from cryptography.fernet import InvalidToken
from starlette.requests import Request
from starlette.responses import Response

from unionflow.config import Settings
from unionflow.console import session as cookie
from unionflow.core.errors import Unauthenticated
from unionflow.core.security import TokenVerifier

FLOW_COOKIE = "uf_console_oidc"
FLOW_SECONDS = 600  # time allowed to sign in at the provider
CALLBACK = "/console/connexion/oidc/retour"
TIMEOUT = httpx.Timeout(10.0)


class OidcError(Exception):
    """The provider refused, or answered something we cannot trust: shown on the sign-in page, in French."""


def configured(settings: Settings) -> bool:
    return bool(settings.oidc_issuer and settings.oidc_client_id)


def issuer_of(settings: Settings) -> str:
    assert settings.oidc_issuer
    return settings.oidc_issuer.rstrip("/")


def display_name(settings: Settings) -> str:
    return settings.oidc_nom or urlparse(issuer_of(settings)).hostname or issuer_of(settings)


def redirect_uri(settings: Settings) -> str:
    return settings.public_base_url.rstrip("/") + CALLBACK


@dataclass
class Flow:
    state: str
    nonce: str
    verifier: str
    suite: str


def new_flow(suite: str) -> Flow:
    return Flow(state=secrets.token_urlsafe(24), nonce=secrets.token_urlsafe(24),
                verifier=secrets.token_urlsafe(48), suite=suite)


def challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def discovery(settings: Settings) -> dict[str, Any]:
    url = issuer_of(settings) + "/.well-known/openid-configuration"
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.get(url)
            response.raise_for_status()
            document: dict[str, Any] = response.json()
    except (httpx.HTTPError, ValueError) as error:
        raise OidcError(f"{display_name(settings)} ne répond pas: réessayez plus tard.") from error
    # The document must speak for the issuer we trust (OpenID Connect Discovery §4.3).
    if str(document.get("issuer", "")).rstrip("/") != issuer_of(settings):
        raise OidcError("Document de découverte du fournisseur incohérent (issuer).")
    return document


def authorization_url(settings: Settings, document: dict[str, Any], flow: Flow) -> str:
    query = {"response_type": "code", "client_id": settings.oidc_client_id, "redirect_uri": redirect_uri(settings),
             "scope": "openid profile email", "state": flow.state, "nonce": flow.nonce,
             "code_challenge": challenge(flow.verifier), "code_challenge_method": "S256"}
    endpoint = str(document["authorization_endpoint"])
    return endpoint + ("&" if "?" in endpoint else "?") + urlencode(query)


async def _token_request(settings: Settings, document: dict[str, Any], form: dict[str, str]) -> dict[str, Any]:
    form = {**form, "client_id": str(settings.oidc_client_id)}
    if settings.oidc_client_secret:
        form["client_secret"] = settings.oidc_client_secret
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.post(str(document["token_endpoint"]), data=form,
                                         headers={"Accept": "application/json"})
    except httpx.HTTPError as error:
        raise OidcError(f"{display_name(settings)} ne répond pas: réessayez plus tard.") from error
    try:
        body: dict[str, Any] = response.json()
    except ValueError:
        body = {}
    if response.status_code != 200 or "access_token" not in body:
        raise OidcError(f"{display_name(settings)} a refusé la connexion ({body.get('error', response.status_code)}).")
    return body


async def exchange(settings: Settings, verifier: TokenVerifier, document: dict[str, Any], flow: Flow,
                   code: str) -> dict[str, Any]:
    """Code → tokens at the token endpoint (with the PKCE verifier), then both tokens verified."""
    tokens = await _token_request(settings, document, {
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri(settings),
        "code_verifier": flow.verifier})
    id_token = tokens.get("id_token")
    if not isinstance(id_token, str):
        raise OidcError("Réponse du fournisseur sans id_token.")
    try:
        identity = await verifier.verify_id_token(id_token, str(settings.oidc_client_id))
        access = await verifier.verify(str(tokens["access_token"]))
    except Unauthenticated as error:
        raise OidcError(f"Jeton du fournisseur refusé: {error.detail}") from error
    if not secrets.compare_digest(str(identity.get("nonce", "")).encode(), flow.nonce.encode()):
        raise OidcError("Jeton du fournisseur rejoué ou d'une autre connexion (nonce).")
    if identity.get("sub") != access.get("sub"):
        raise OidcError("Les jetons du fournisseur ne désignent pas la même personne.")
    return tokens


async def refresh(settings: Settings, refresh_token: str) -> dict[str, Any] | None:
    try:
        return await _token_request(settings, await discovery(settings),
                                    {"grant_type": "refresh_token", "refresh_token": refresh_token})
    except OidcError:
        return None


async def revoke(settings: Settings, refresh_token: str) -> None:
    """RFC 7009 at the provider when it offers it; sign-out clears the cookie in any case."""
    try:
        document = await discovery(settings)
        endpoint = document.get("revocation_endpoint")
        if not endpoint:
            return
        form = {"token": refresh_token, "token_type_hint": "refresh_token", "client_id": str(settings.oidc_client_id)}
        if settings.oidc_client_secret:
            form["client_secret"] = settings.oidc_client_secret
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            await client.post(str(endpoint), data=form)
    except (OidcError, httpx.HTTPError):
        return


# --- the flow's cookie (encrypted with the session's key) ----------------------------------------------------

async def write_flow(request: Request, response: Response, flow: Flow) -> None:
    found = await cookie.key_for_write(request)
    if found is None:
        raise OidcError("Service pas encore initialisé: réessayez dans un instant.")
    kid, fernet = found
    value = kid + "." + fernet.encrypt(json.dumps(asdict(flow)).encode()).decode()
    # Lax: the provider sends the browser back by a top-level GET from its own site.
    response.set_cookie(FLOW_COOKIE, value, max_age=FLOW_SECONDS, path=cookie.PATH, httponly=True, samesite="lax",
                        secure=cookie.secure(request))


async def read_flow(request: Request) -> Flow | None:
    raw = request.cookies.get(FLOW_COOKIE)
    if not raw or "." not in raw:
        return None
    kid, token = raw.split(".", 1)
    fernet = await cookie.key_for_read(request, kid)
    if fernet is None:
        return None
    try:
        return Flow(**json.loads(fernet.decrypt(token.encode(), ttl=FLOW_SECONDS)))
    except (InvalidToken, ValueError, TypeError):
        return None


def clear_flow(request: Request, response: Response) -> None:
    response.delete_cookie(FLOW_COOKIE, path=cookie.PATH, httponly=True, samesite="lax", secure=cookie.secure(request))
