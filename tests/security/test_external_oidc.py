"""Tokens of an external OIDC issuer (Keycloak-like), verified against its JWKS served on loopback."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.ext.asyncio import async_sessionmaker
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.identity.loopback import serve
from unionflow.app import create_app

ISSUER = "https://idp.union.example/realms/unionflow"
AUDIENCE = "unionflow-mobile"
COOLDOWN = 1


class Jwks:
    """A JWKS endpoint whose published keys the test rotates, counting fetches."""

    def __init__(self) -> None:
        self.keys: dict[str, rsa.RSAPrivateKey] = {}
        self.published: list[str] = []
        self.hits = 0
        self.app = Starlette(routes=[Route("/certs", self.certs)])

    def new_key(self, kid: str) -> None:
        self.keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    async def certs(self, request: Request) -> JSONResponse:
        self.hits += 1
        result = []
        for kid in self.published:
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.keys[kid].public_key()))
            jwk.update({"kid": kid, "use": "sig", "alg": "RS256"})
            result.append(jwk)
        return JSONResponse({"keys": result})

    def token(self, kid: str, roles: list[str], **claims: object) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": str(uuid.uuid4()), "exp": now + 300, "iat": now,
                "preferred_username": "externe", "realm_access": {"roles": roles}, **claims}
        return jwt.encode(body, self.keys[kid], algorithm="RS256", headers={"kid": kid})


@pytest.fixture(scope="module")
def jwks() -> Iterator[tuple[Jwks, str]]:
    server = Jwks()
    with serve(server.app) as base_url:
        yield server, base_url + "/certs"


@pytest.fixture
async def external(jwks, settings, db) -> AsyncIterator[httpx.AsyncClient]:
    _server, url = jwks
    app = create_app(settings.model_copy(update={
        "oidc_issuer": ISSUER, "oidc_jwks_url": url, "oidc_audience": AUDIENCE,
        "jwks_refetch_cooldown_seconds": COOLDOWN}))
    app.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                expire_on_commit=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield http
    await app.state.engine.dispose()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_external_token_roles_apply(jwks, external, factory):
    server, _url = jwks
    server.new_key("k1")
    server.published = ["k1"]
    admin = await external.get("/api/admin/users", headers=_auth(server.token("k1", ["SUPER_ADMIN"])))
    assert admin.status_code == 200, admin.text
    user = await external.get("/api/admin/users", headers=_auth(server.token("k1", ["USER"])))
    assert user.status_code == 403
    wrong_audience = server.token("k1", ["SUPER_ADMIN"], aud="unionflow-api")
    assert (await external.get("/api/admin/users", headers=_auth(wrong_audience))).status_code == 401
    # The built-in issuer keeps working next to the external one.
    local = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await external.get("/api/admin/users", headers=local.headers)).status_code == 200


async def test_unknown_kid_refetches_once_per_cooldown_and_rotation_is_picked_up(jwks, external):
    server, _url = jwks
    server.new_key("a")
    server.new_key("b")
    server.published = ["a"]
    url = "/api/status"
    assert (await external.get(url, headers=_auth(server.token("a", ["USER"])))).status_code == 200
    assert server.hits >= 1
    start = server.hits

    await asyncio.sleep(COOLDOWN + 0.1)
    for _ in range(5):  # a burst of tokens with an unknown kid: one fetch, not five
        assert (await external.get(url, headers=_auth(server.token("b", ["USER"])))).status_code == 401
    assert server.hits == start + 1

    server.published = ["b"]  # the provider rotates its key
    assert (await external.get(url, headers=_auth(server.token("b", ["USER"])))).status_code == 401
    assert server.hits == start + 1  # still inside the cooldown

    await asyncio.sleep(COOLDOWN + 0.1)
    assert (await external.get(url, headers=_auth(server.token("b", ["USER"])))).status_code == 200
    assert server.hits == start + 2
    assert (await external.get(url, headers=_auth(server.token("a", ["USER"])))).status_code == 401
    assert server.hits == start + 2


async def test_member_linking_by_email_needs_a_verified_address(jwks, external, factory):
    server, _url = jwks
    server.new_key("link")
    server.published = ["link"]
    org = await factory.organisation()
    email = f"khady.{uuid.uuid4().hex[:8]}@example.sn"
    await factory.membre(org, email=email)
    url = "/api/organisations/mes-organisations"

    unverified = server.token("link", ["USER"], email=email, email_verified=False)
    assert (await external.get(url, headers=_auth(unverified))).json() == []
    verified = server.token("link", ["USER"], email=email, email_verified=True)
    assert [o["id"] for o in (await external.get(url, headers=_auth(verified))).json()] == [str(org.id)]

    taken = f"linked.{uuid.uuid4().hex[:8]}@example.sn"
    await factory.membre(org, email=taken, user_sub="another-subject")
    other = server.token("link", ["USER"], email=taken, email_verified=True)
    assert (await external.get(url, headers=_auth(other))).json() == []
