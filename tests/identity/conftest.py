"""A fake Keycloak on loopback, and a second app configured to administer users through it (and to accept its
tokens), running in the test's transaction like the main app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.identity.fake_keycloak import FakeKeycloak
from tests.identity.loopback import serve
from unionflow.app import create_app
from unionflow.config import Settings


@pytest.fixture(scope="session")
def fake_keycloak_server() -> Iterator[FakeKeycloak]:
    fake = FakeKeycloak()
    with serve(fake.app) as base_url:
        fake.base_url = base_url
        yield fake


@pytest.fixture
def keycloak(fake_keycloak_server: FakeKeycloak) -> Iterator[FakeKeycloak]:
    fake = fake_keycloak_server
    yield fake
    fake.fail_with = None
    fake.direct_grants = True


def keycloak_settings(settings: Settings, fake: FakeKeycloak, **extra: object) -> Settings:
    return settings.model_copy(update={
        "keycloak_admin_url": fake.base_url, "keycloak_realm": fake.realm,
        "keycloak_admin_client_id": fake.client_id, "keycloak_admin_client_secret": fake.client_secret,
        "oidc_issuer": fake.issuer, "oidc_audience": "unionflow-api", **extra,
    })


@pytest.fixture(scope="session")
async def kc_app(settings: Settings, fake_keycloak_server: FakeKeycloak) -> AsyncIterator[FastAPI]:
    application = create_app(keycloak_settings(settings, fake_keycloak_server))
    yield application
    await application.state.engine.dispose()


@pytest.fixture
async def kc_client(kc_app: FastAPI, db: AsyncSession) -> AsyncIterator[httpx.AsyncClient]:
    """Client of the Keycloak-configured app, whose requests run in savepoints of the test's transaction."""
    real = kc_app.state.sessionmaker
    kc_app.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                   expire_on_commit=False)
    try:
        transport = httpx.ASGITransport(app=kc_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http
    finally:
        kc_app.state.sessionmaker = real
