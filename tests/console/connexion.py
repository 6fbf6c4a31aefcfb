"""Signing in to the console as a browser does: the sign-in form, its CSRF token, the session cookie."""

from __future__ import annotations

import re
from typing import Any

import httpx

from unionflow.core.passwords import hash_password

PASSWORD = "Console-Essai-2026!"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="([^"]+)"')


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, html[:2000]
    return found.group(1)


async def sign_in(client: httpx.AsyncClient, actor: Any, db: Any) -> str:
    """Signs ``actor`` in; returns the session's CSRF token (read from a page, as a form would). ``db`` None: the
    password is already set and committed (tests on committed data)."""
    if db is not None:
        actor.user.password_hash = hash_password(PASSWORD)
        await db.flush()
    page = await client.get("/console/connexion")
    response = await client.post("/console/connexion", data={
        "csrf": csrf_of(page.text), "email": actor.user.email, "password": PASSWORD, "suite": "/console/"})
    assert response.status_code == 303, response.text
    home = await client.get("/console/contexte")
    assert home.status_code == 200, home.text
    return csrf_of(home.text)
