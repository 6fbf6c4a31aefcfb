"""Built-in identity provider endpoints: token, JWKS, OIDC discovery (all public by nature)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any
from urllib.parse import unquote_plus

from fastapi import APIRouter, Form, Request
from fastapi.responses import JSONResponse

from unionflow.auth import keys
from unionflow.auth.schemas import Jwks, TokenResponse
from unionflow.auth.service import InvalidClient, InvalidGrant, TokenService, UnsupportedGrant
from unionflow.auth.throttle import IP_LIMIT_FACTOR, AttemptLimiter, client_ip
from unionflow.core.db import SessionDep
from unionflow.core.errors import RegleMetier, UnionFlowError, problem
from unionflow.core.openapi import problems
from unionflow.core.regles import FORM_RULES, requis_si
from unionflow.core.routing import GuardedRoute

router = APIRouter(tags=["Authentification"], route_class=GuardedRoute)

# The grant's own fields, checked below and stated in the form's schema from the same messages.
IDENTIFIANTS_REQUIS = "username et password sont requis"
REFRESH_TOKEN_REQUIS = "refresh_token est requis"
_REGLES_TOKEN = [requis_si("grant_type", "password", ("username", "password"), IDENTIFIANTS_REQUIS),
                 requis_si("grant_type", "refresh_token", ("refresh_token",), REFRESH_TOKEN_REQUIS)]


@router.post("/api/auth/token", response_model=TokenResponse, response_model_exclude_none=True,
             summary="Obtenir un jeton (OAuth 2.0)",
             description="Corps `application/x-www-form-urlencoded`: `grant_type=password` avec `username` "
                         "(e-mail) et `password`, `grant_type=refresh_token` avec `refresh_token`, ou "
                         "`grant_type=client_credentials` pour un client API (Admin - Clients API): identifiants "
                         "en HTTP Basic ou `client_id`/`client_secret` dans le corps; pas de jeton de "
                         "rafraîchissement; client inconnu, secret faux ou client révoqué: 401 `invalid_client`. "
                         "Identifiants invalides: 400 `invalid_grant` (RFC 6749). 400 `regle-metier`: "
                         "`grant_type=password` sans `username` ou `password` (vides compris), "
                         "`grant_type=refresh_token` sans `refresh_token`. Tentatives limitées: "
                         "429 avec `Retry-After` après trop d'échecs par e-mail ou par adresse IP dans la "
                         "fenêtre (voir docs/identity.md).", responses=problems(401, 429),
             openapi_extra={FORM_RULES: _REGLES_TOKEN})
async def token(
    request: Request,
    session: SessionDep,
    grant_type: Annotated[str, Form(json_schema_extra={"enum": ["password", "refresh_token"]})],
    username: Annotated[str | None, Form()] = None,
    password: Annotated[str | None, Form()] = None,
    refresh_token: Annotated[str | None, Form()] = None,
    scope: Annotated[str | None, Form()] = None,
    client_id: Annotated[str | None, Form()] = None,
    client_secret: Annotated[str | None, Form()] = None,
) -> TokenResponse | JSONResponse:
    # RFC 6749 §5.1 (no-store, Pragma) on every answer of this endpoint, errors included: core/headers.py.
    service = TokenService(session, request.app.state.settings)
    if grant_type == "client_credentials":
        identifiant, secret = _client_credentials(request, client_id, client_secret)
        limiter = AttemptLimiter(request, "client")
        by_client = limiter.key("client", identifiant)
        by_ip = limiter.key("ip", client_ip(request))
        return await limiter.attempt(
            session, [(by_client, limiter.limit), (by_ip, limiter.limit * IP_LIMIT_FACTOR)], [by_client],
            lambda: service.client_credentials_grant(identifiant, secret), InvalidClient)
    if grant_type == "password":
        if not username or not password:
            raise RegleMetier(IDENTIFIANTS_REQUIS)
        limiter = AttemptLimiter(request, "login")
        by_email = limiter.key("email", username)
        by_ip = limiter.key("ip", client_ip(request))
        return await limiter.attempt(
            session, [(by_email, limiter.limit), (by_ip, limiter.limit * IP_LIMIT_FACTOR)], [by_email],
            lambda: service.password_grant(username, password), InvalidGrant)
    if grant_type == "refresh_token":
        if not refresh_token:
            raise RegleMetier(REFRESH_TOKEN_REQUIS)
        result = await service.refresh_grant(refresh_token)
        if isinstance(result, UnionFlowError):
            # Returned, not raised: the revocation of a replayed token family must be committed.
            return problem(result.status, result.title, result.detail, result.slug, request.url.path, **result.extra)
        return result
    raise UnsupportedGrant()


def _client_credentials(request: Request, client_id: str | None, client_secret: str | None) -> tuple[str, str]:
    """RFC 6749 §2.3.1: HTTP Basic (client_secret_basic) or the form fields (client_secret_post)."""
    header = request.headers.get("authorization", "")
    if header[:6].lower() == "basic ":
        try:
            decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
            raw_id, raw_secret = decoded.split(":", 1)
        except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
            raise InvalidClient("En-tête Authorization Basic illisible") from exc
        return unquote_plus(raw_id), unquote_plus(raw_secret)
    if not client_id or not client_secret:
        raise InvalidClient("client_id et client_secret sont requis")
    return client_id, client_secret


@router.get("/api/auth/jwks", response_model=Jwks, summary="Clés publiques (JWKS) de l'émetteur intégré",
            description="Clés RSA publiques (RFC 7517) avec lesquelles vérifier les jetons de l'émetteur intégré; "
                        "une clé retirée y reste le temps que ses jetons expirent. Public.")
async def jwks(session: SessionDep) -> Jwks:
    return Jwks(keys=await keys.public_jwks(session))


@router.get("/.well-known/openid-configuration", summary="Document de découverte OIDC de l'émetteur intégré",
            description="Émetteur, points d'accès du jeton et des clés, types d'autorisation acceptés (OpenID "
                        "Connect Discovery 1.0). Public.")
async def discovery(request: Request) -> dict[str, Any]:
    settings = request.app.state.settings
    base = settings.public_base_url.rstrip("/")
    return {
        "issuer": settings.issuer,
        "token_endpoint": f"{base}/api/auth/token",
        "jwks_uri": f"{base}/api/auth/jwks",
        "grant_types_supported": ["password", "refresh_token", "client_credentials"],
        "response_types_supported": ["token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "email", "preferred_username", "realm_access"],
    }
