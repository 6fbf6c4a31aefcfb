"""Built-in identity provider endpoints: token, JWKS, OIDC discovery (all public by nature)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import JSONResponse

from unionflow.auth import keys
from unionflow.auth.schemas import Jwks, TokenResponse
from unionflow.auth.service import InvalidGrant, TokenService, UnsupportedGrant
from unionflow.core.auth import SessionDep
from unionflow.core.errors import InvalidInput, UnionFlowError, problem
from unionflow.core.openapi import problems
from unionflow.identity.throttle import IP_LIMIT_FACTOR, AttemptLimiter, client_ip

router = APIRouter(tags=["Authentification"])


@router.post("/api/auth/token", response_model=TokenResponse, summary="Obtenir un jeton (OAuth 2.0)",
             description="Corps `application/x-www-form-urlencoded`: `grant_type=password` avec `username` "
                         "(e-mail) et `password`, ou `grant_type=refresh_token` avec `refresh_token`. "
                         "Identifiants invalides: 400 `invalid_grant` (RFC 6749). Tentatives limitées: "
                         "429 avec `Retry-After` après trop d'échecs par e-mail ou par adresse IP dans la "
                         "fenêtre (voir docs/identity.md).", responses=problems(429))
async def token(
    request: Request,
    session: SessionDep,
    grant_type: Annotated[str, Form(json_schema_extra={"enum": ["password", "refresh_token"]})],
    username: Annotated[str | None, Form()] = None,
    password: Annotated[str | None, Form()] = None,
    refresh_token: Annotated[str | None, Form()] = None,
    scope: Annotated[str | None, Form()] = None,
    client_id: Annotated[str | None, Form()] = None,
) -> TokenResponse | JSONResponse:
    service = TokenService(session, request.app.state.settings)
    if grant_type == "password":
        if not username or not password:
            raise InvalidInput("username et password sont requis")
        limiter = AttemptLimiter(request, "login")
        by_email = limiter.key("email", username)
        by_ip = limiter.key("ip", client_ip(request))
        return await limiter.attempt(
            session, [(by_email, limiter.limit), (by_ip, limiter.limit * IP_LIMIT_FACTOR)], [by_email],
            lambda: service.password_grant(username, password), InvalidGrant)
    if grant_type == "refresh_token":
        if not refresh_token:
            raise InvalidInput("refresh_token est requis")
        result = await service.refresh_grant(refresh_token)
        if isinstance(result, UnionFlowError):
            # Returned, not raised: the revocation of a replayed token family must be committed.
            return problem(result.status, result.title, result.detail, result.slug, request.url.path, **result.extra)
        return result
    raise UnsupportedGrant()


@router.get("/api/auth/jwks", response_model=Jwks, summary="Clés publiques (JWKS) de l'émetteur intégré")
async def jwks(session: SessionDep) -> Jwks:
    return Jwks(keys=await keys.public_jwks(session))


@router.get("/.well-known/openid-configuration", summary="Document de découverte OIDC de l'émetteur intégré")
async def discovery(request: Request) -> dict[str, Any]:
    settings = request.app.state.settings
    base = settings.public_base_url.rstrip("/")
    return {
        "issuer": settings.issuer,
        "token_endpoint": f"{base}/api/auth/token",
        "jwks_uri": f"{base}/api/auth/jwks",
        "grant_types_supported": ["password", "refresh_token"],
        "response_types_supported": ["token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "email", "preferred_username", "realm_access"],
    }
