"""Tokens of an external OIDC issuer (Keycloak-like), verified against its JWKS served on loopback."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
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


# ------------------------------------------------------------------------------ a person is (issuer, subject)

async def test_a_subject_of_another_issuer_is_another_person(jwks, external, factory):
    """The external issuer gives a token whose ``sub`` equals a local account's id: it is not that account's
    member (no member record, no organisation), while the local account's own token still is."""
    server, _url = jwks
    server.new_key("collide")
    server.published = ["collide"]
    org = await factory.organisation()
    local = await factory.actor([], organisation=org)
    url = "/api/organisations/mes-organisations"
    assert [o["id"] for o in (await external.get(url, headers=local.headers)).json()] == [str(org.id)]

    same_sub = server.token("collide", ["USER"], sub=str(local.user.id))
    response = await external.get(url, headers=_auth(same_sub))
    assert response.status_code == 200 and response.json() == []
    assert (await external.get("/api/membres/me", headers=_auth(same_sub))).status_code == 404
    # And the principal cache, warm with the local account, does not answer for the other issuer either.
    assert (await external.get(url, headers=_auth(same_sub))).json() == []


def test_audit_entries_name_the_issuer_of_the_actor():
    from unionflow.core import audit
    from unionflow.core.auth import AuthContext

    actor = AuthContext(sub="s-1", email=None, username=None, realm_roles=frozenset(), roles=frozenset(),
                        issuer=ISSUER)
    row = audit.entry(actor, action="CREER", module="TEST")
    assert (row.utilisateur_emetteur, row.utilisateur_id) == (ISSUER, "s-1")


# ------------------------------------------------------------------------------ issuer, 401, key fetching

async def test_an_issuer_with_a_trailing_slash_is_compared_exactly(jwks, settings, db):
    server, url = jwks
    server.new_key("slash")
    server.published = ["slash"]
    issuer = url.removesuffix("/certs") + "/"
    app = create_app(settings.model_copy(update={"oidc_issuer": issuer, "oidc_jwks_url": url,
                                                 "oidc_audience": AUDIENCE}))
    app.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                expire_on_commit=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        exact = await http.get("/api/status", headers=_auth(server.token("slash", ["USER"], iss=issuer)))
        assert exact.status_code == 200, exact.text
        trimmed = server.token("slash", ["USER"], iss=issuer.rstrip("/"))
        assert (await http.get("/api/status", headers=_auth(trimmed))).status_code == 401
    await app.state.engine.dispose()


async def test_a_401_says_invalid_token_only_when_a_token_was_presented(jwks, external):
    server, _url = jwks
    server.new_key("expired")
    server.published = ["expired"]
    anonymous = await external.get("/api/membres/me")
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"] == 'Bearer realm="unionflow"'
    expired = server.token("expired", ["USER"], exp=int(time.time()) - 3600)
    for token in (expired, "not-a-jwt", server.token("expired", ["USER"], iss="https://other.example")):
        response = await external.get("/api/membres/me", headers=_auth(token))
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="unionflow", error="invalid_token"'


class HungProvider:
    """A JWKS endpoint speaking raw HTTP/1.1 that serves its keys until ``hang`` is set, then accepts every
    connection and never answers (a provider whose process is stuck), counting those connections."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.hang = False
        self.hung_connections = 0
        self._held: list[socket.socket] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/certs"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            if self.hang:
                self.hung_connections += 1
                self._held.append(conn)
                continue
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                             b"Content-Length: " + str(len(self.body)).encode() + b"\r\n\r\n" + self.body)

    def close(self) -> None:
        self._sock.close()
        for conn in self._held:
            conn.close()


async def test_a_hung_provider_delays_no_request_whose_key_is_cached(settings, caplog):
    """Cache expired, provider hung: five concurrent requests with a known kid answer at once from the stale
    keys, one fetch is attempted in the background, and its failure is logged at WARNING naming the issuer."""
    server = Jwks()
    server.new_key("hung")
    server.published = ["hung"]
    body = bytes((await server.certs(None)).body)  # type: ignore[arg-type]
    provider = HungProvider(body)
    app = create_app(settings.model_copy(update={
        "oidc_issuer": ISSUER, "oidc_jwks_url": provider.url, "oidc_audience": AUDIENCE,
        "jwks_cache_seconds": 1, "jwks_refetch_cooldown_seconds": 30, "jwks_fetch_timeout_seconds": 8}))
    # Its own engines (not the test's savepointed connection): the five requests run truly concurrently.
    caplog.set_level("WARNING", logger="unionflow.security")
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
            first = await http.get("/api/status", headers=_auth(server.token("hung", ["USER"])))
            assert first.status_code == 200, first.text
            provider.hang = True
            await asyncio.sleep(1.2)  # the cached keys are now older than UNIONFLOW_JWKS_CACHE_SECONDS

            async def call() -> tuple[int, float]:
                start = time.monotonic()
                response = await http.get("/api/status", headers=_auth(server.token("hung", ["USER"])))
                return response.status_code, time.monotonic() - start

            results = await asyncio.gather(*(call() for _ in range(5)))
            assert [status for status, _ in results] == [200] * 5
            # No request waited for the fetch: the provider hangs until the fetch's timeout, so a request that had
            # waited for it would find it finished. Checked on the fetch's state, not on a clock (a timed bound
            # failed on a loaded machine).
            refresh = app.state.token_verifier._issuers[ISSUER].keys._task  # the one background fetch
            assert refresh is not None and not refresh.done(), results
            assert await asyncio.wait_for(asyncio.shield(refresh), 30) is False
            warnings = [r for r in caplog.records if r.name == "unionflow.security" and ISSUER in r.getMessage()]
            assert warnings and all(r.levelname == "WARNING" for r in warnings), caplog.text
            assert provider.hung_connections == 1
            # The failure backs off: more requests still answer from the cache without a new attempt.
            assert (await http.get("/api/status", headers=_auth(server.token("hung", ["USER"])))).status_code == 200
            await asyncio.sleep(0.1)
            assert provider.hung_connections == 1 and len(warnings) == 1
    finally:
        provider.close()
        await app.state.engine.dispose()
        await app.state.principal_engine.dispose()
