"""A loopback OpenID Connect provider speaking the documented protocol: discovery, authorization endpoint (code
flow with PKCE S256, the user already signed in at the provider), token endpoint (authorization_code and
refresh_token grants), JWKS and RFC 7009 revocation. Served by uvicorn on 127.0.0.1 (tests/identity/loopback)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

CLIENT_ID = "unionflow-console"
AUDIENCE = "unionflow-api"


@dataclass
class Grant:
    redirect_uri: str
    challenge: str
    nonce: str
    used: bool = False


@dataclass
class Provider:
    redirect_uris: list[str]
    issuer: str = ""
    sub: str = field(default_factory=lambda: str(uuid.uuid4()))
    email: str = "awa.ndiaye@example.sn"
    roles: list[str] = field(default_factory=lambda: ["USER"])
    expires_in: int = 300
    # Faults the tests switch on: a foreign key signing the tokens, a nonce not the client's.
    sign_with_foreign_key: bool = False
    wrong_nonce: bool = False
    grants: dict[str, Grant] = field(default_factory=dict)
    refreshes: int = 0
    revoked: list[str] = field(default_factory=list)
    token_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.foreign = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.app = Starlette(routes=[
            Route("/.well-known/openid-configuration", self.discovery), Route("/authorize", self.authorize),
            Route("/token", self.token, methods=["POST"]), Route("/certs", self.certs),
            Route("/revoke", self.revoke, methods=["POST"])])

    async def discovery(self, request: Request) -> Response:
        return JSONResponse({
            "issuer": self.issuer, "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token", "jwks_uri": self.issuer + "/certs",
            "revocation_endpoint": self.issuer + "/revoke", "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"], "id_token_signing_alg_values_supported": ["RS256"],
            "subject_types_supported": ["public"]})

    async def certs(self, request: Request) -> Response:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": "loopback-1", "use": "sig", "alg": "RS256"})
        return JSONResponse({"keys": [jwk]})

    async def authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != CLIENT_ID or q.get("redirect_uri") not in self.redirect_uris:
            return JSONResponse({"error": "invalid_request"}, status_code=400)  # never redirect to an unknown URI
        back = q["redirect_uri"]
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return RedirectResponse(back + "?" + urlencode({"error": "invalid_request", "state": q.get("state", "")}))
        code = secrets.token_urlsafe(16)
        self.grants[code] = Grant(back, q["code_challenge"], q.get("nonce", ""))
        return RedirectResponse(back + "?" + urlencode({"code": code, "state": q.get("state", "")}), status_code=302)

    def _error(self, error: str) -> Response:
        self.token_errors.append(error)
        return JSONResponse({"error": error}, status_code=400)

    async def token(self, request: Request) -> Response:
        form = await request.form()
        if form.get("client_id") != CLIENT_ID:
            return self._error("invalid_client")
        if form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") in self.revoked:
                return self._error("invalid_grant")
            self.refreshes += 1
            return JSONResponse(self._tokens(nonce=None))
        grant = self.grants.get(str(form.get("code")))
        if form.get("grant_type") != "authorization_code" or grant is None or grant.used:
            return self._error("invalid_grant")
        grant.used = True
        verifier = str(form.get("code_verifier") or "")
        computed = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if computed != grant.challenge or form.get("redirect_uri") != grant.redirect_uri:
            return self._error("invalid_grant")
        return JSONResponse(self._tokens(nonce="autre" if self.wrong_nonce else grant.nonce))

    async def revoke(self, request: Request) -> Response:
        form = await request.form()
        self.revoked.append(str(form.get("token")))
        return Response(status_code=200)

    def _jwt(self, claims: dict[str, Any]) -> str:
        key = self.foreign if self.sign_with_foreign_key else self.key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "loopback-1"})

    def _tokens(self, nonce: str | None) -> dict[str, Any]:
        now = int(time.time())
        common = {"iss": self.issuer, "sub": self.sub, "iat": now, "exp": now + self.expires_in,
                  "email": self.email, "email_verified": True}
        access = self._jwt({**common, "aud": AUDIENCE, "realm_access": {"roles": self.roles},
                            "preferred_username": "awa.ndiaye"})
        identity = {**common, "aud": CLIENT_ID, **({"nonce": nonce} if nonce is not None else {})}
        return {"access_token": access, "id_token": self._jwt(identity), "token_type": "Bearer",
                "expires_in": self.expires_in, "refresh_token": secrets.token_urlsafe(24)}
