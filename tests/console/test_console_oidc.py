"""Console sign-in at an external OIDC provider (authorization code + PKCE), against a loopback provider.

The browser's part is played by two clients: the console's ASGI client (cookies of the console) and a real HTTP
client that follows the redirect to the provider and brings back its answer, as a browser would."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from tests.console.connexion import csrf_of
from tests.console.oidc_provider import AUDIENCE, CLIENT_ID, Provider
from tests.identity.loopback import serve
from unionflow.app import create_app

CALLBACK = "http://testserver/console/connexion/oidc/retour"


@pytest.fixture
def provider() -> Iterator[Provider]:
    idp = Provider(redirect_uris=[CALLBACK])
    with serve(idp.app) as base_url:
        idp.issuer = base_url
        yield idp


@pytest.fixture
async def console(provider, settings, db) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings.model_copy(update={
        "oidc_issuer": provider.issuer, "oidc_jwks_url": provider.issuer + "/certs", "oidc_audience": AUDIENCE,
        "oidc_client_id": CLIENT_ID, "oidc_nom": "SSO de l'union"}))
    app.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                expire_on_commit=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield http
    await app.state.engine.dispose()
    await app.state.principal_engine.dispose()


async def _member(factory, provider: Provider):
    """A member whose e-mail the provider vouches for (email_verified): the API links him to the subject."""
    org = await factory.organisation(nom="Mutuelle de Guédiawaye")
    return await factory.membre(org, org_roles=["MEMBRE"], email=provider.email, prenom="Awa", nom="Ndiaye")


async def _to_provider(console: httpx.AsyncClient, suite: str = "/console/moi") -> str:
    """Clicks « Se connecter avec … »; returns where the provider sends the browser back."""
    start = await console.get("/console/connexion/oidc", params={"suite": suite})
    assert start.status_code == 303, start.text
    assert "uf_console_oidc=" in start.headers["set-cookie"] and "HttpOnly" in start.headers["set-cookie"]
    query = parse_qs(urlparse(start.headers["location"]).query)
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) == 43
    assert query["client_id"] == [CLIENT_ID] and query["redirect_uri"] == [CALLBACK] and query["nonce"][0]
    async with httpx.AsyncClient() as browser:
        at_provider = await browser.get(start.headers["location"])
    assert at_provider.status_code == 302, at_provider.text
    back = at_provider.headers["location"]
    assert back.startswith(CALLBACK)
    return back.removeprefix("http://testserver")


async def test_sign_in_at_the_external_provider_gives_the_same_session(console, provider, factory, db):
    await _member(factory, provider)
    page = await console.get("/console/connexion")
    assert "Se connecter avec SSO de l&#39;union" in page.text and 'href="/console/connexion/oidc?suite=' in page.text
    back = await _to_provider(console)
    done = await console.get(back)
    assert done.status_code == 303 and done.headers["location"] == "/console/moi", done.text
    assert "uf_console=" in done.headers["set-cookie"]
    moi = await console.get("/console/moi")
    assert moi.status_code == 200 and "Mon compte" in moi.text and "Awa" in moi.text
    # The flow's cookie is single use: the same answer brought back again is refused.
    again = await console.get(back)
    assert again.status_code == 403 and "recommencer" in again.text
    # Sign-out revokes the refresh token at the provider (RFC 7009) and ends the console session.
    out = await console.post("/console/deconnexion", data={"csrf": csrf_of(moi.text)})
    assert out.status_code == 303 and len(provider.revoked) == 1
    assert (await console.get("/console/moi")).status_code == 303


async def test_expiring_access_token_is_refreshed_at_the_provider(console, provider, factory, db):
    await _member(factory, provider)
    provider.expires_in = 20  # within the console's refresh margin: the next page refreshes first
    await console.get(await _to_provider(console))
    assert (await console.get("/console/moi")).status_code == 200
    assert provider.refreshes >= 1


async def test_state_mismatch_is_refused_and_no_session_is_opened(console, provider, factory, db):
    await _member(factory, provider)
    back = await _to_provider(console)
    forged = back.replace("state=", "state=x")
    refused = await console.get(forged)
    assert refused.status_code == 403 and "état attendu" in refused.text
    assert "uf_console=" not in refused.headers.get("set-cookie", "")
    assert not provider.token_errors and all(not g.used for g in provider.grants.values())  # code never spent


async def test_answer_without_the_flow_cookie_is_refused(console, provider, factory, db):
    """A login CSRF: someone else's code pushed into this browser (which never started a flow)."""
    back = await _to_provider(console)
    console.cookies.clear()
    refused = await console.get(back)
    assert refused.status_code == 403 and "uf_console=" not in refused.headers.get("set-cookie", "")


async def test_token_signed_by_another_key_is_refused(console, provider, factory, db):
    await _member(factory, provider)
    provider.sign_with_foreign_key = True
    refused = await console.get(await _to_provider(console))
    assert refused.status_code == 400 and "Jeton du fournisseur refusé" in refused.text
    assert "uf_console=" not in refused.headers.get("set-cookie", "")


async def test_id_token_with_another_nonce_is_refused(console, provider, factory, db):
    await _member(factory, provider)
    provider.wrong_nonce = True
    refused = await console.get(await _to_provider(console))
    assert refused.status_code == 400 and "nonce" in refused.text
    assert "uf_console=" not in refused.headers.get("set-cookie", "")


async def test_provider_refusal_is_shown_in_french(console, provider):
    start = await console.get("/console/connexion/oidc")
    state = parse_qs(urlparse(start.headers["location"]).query)["state"][0]
    refused = await console.get("/console/connexion/oidc/retour", params={"error": "access_denied", "state": state})
    assert refused.status_code == 400 and "pas accordé la connexion (access_denied)" in refused.text


async def test_no_button_and_no_flow_without_a_configured_provider(client):
    page = await client.get("/console/connexion")
    assert "Se connecter avec" not in page.text
    assert (await client.get("/console/connexion/oidc")).status_code == 404
