"""The verified-token cache must never accept what full verification would refuse."""

from __future__ import annotations

import time

import pytest

from unionflow.core.errors import Unauthenticated
from unionflow.core.security import LEEWAY_SECONDS, VerifiedTokens


def test_entry_expires_with_the_token():
    cache = VerifiedTokens()
    cache.put("tok-live", {"sub": "a", "exp": int(time.time()) + 60})
    cache.put("tok-dead", {"sub": "b", "exp": int(time.time()) - LEEWAY_SECONDS - 1})
    assert cache.get("tok-live") == {"sub": "a", "exp": pytest.approx(time.time() + 60, abs=2)}
    assert cache.get("tok-dead") is None
    assert cache.get("tok-live" + "x") is None


def test_bounded_least_recently_used():
    cache = VerifiedTokens(maxsize=2)
    exp = int(time.time()) + 60
    cache.put("t1", {"sub": "1", "exp": exp})
    cache.put("t2", {"sub": "2", "exp": exp})
    assert cache.get("t1") is not None
    cache.put("t3", {"sub": "3", "exp": exp})
    assert cache.get("t2") is None and cache.get("t1") is not None and cache.get("t3") is not None


def test_cached_claims_are_copies():
    cache = VerifiedTokens()
    cache.put("t", {"sub": "1", "exp": int(time.time()) + 60})
    first = cache.get("t")
    assert first is not None
    first["sub"] = "changed"
    assert cache.get("t") == {"sub": "1", "exp": first["exp"]}


async def test_tampered_token_refused_after_the_genuine_one_was_cached(client, factory):
    admin = await factory.actor(["ADMIN"])
    assert (await client.get("/api/status", headers=admin.headers)).status_code == 200
    token = admin.headers["Authorization"].removeprefix("Bearer ")
    header, payload, signature = token.split(".")
    forged = f"{header}.{payload}.{signature[:-4]}AAAA"
    for _ in range(2):  # a failure is never cached either
        response = await client.get("/api/status", headers={"Authorization": f"Bearer {forged}"})
        assert response.status_code == 401
    assert (await client.get("/api/status", headers=admin.headers)).status_code == 200


async def test_verifier_rejects_garbage_every_time(app):
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            await app.state.token_verifier.verify("not.a.token")
