from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from sqlalchemy import delete

from tests.factories import Factory
from tests.security.catalog import ALL_ROLES
from unionflow.config import Settings
from unionflow.models import UtilisateurLocal


@pytest.fixture(scope="module")
async def role_headers(app: FastAPI, settings: Settings) -> AsyncIterator[dict[str, dict[str, str]]]:
    """One committed caller per single role (and one without any role), shared by a module's tests: their
    tokens carry the role as a realm role and no membership, so authorization depends on the role alone."""
    async with app.state.sessionmaker() as session:
        factory = Factory(session, settings, commit=True)
        actors = {role: await factory.actor([role], with_membre=False) for role in ALL_ROLES}
        actors[""] = await factory.actor([], with_membre=False)
        yield {role: actor.headers for role, actor in actors.items()}
        await session.execute(delete(UtilisateurLocal).where(
            UtilisateurLocal.id.in_([a.user.id for a in actors.values()])))
        await session.commit()
