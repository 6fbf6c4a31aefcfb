"""Password change of the connected member, and attempt limits on login and password change."""

from __future__ import annotations

import uuid

import httpx
import pytest
from argon2 import PasswordHasher
from sqlalchemy import select
from starlette.requests import Request

from unionflow.app import create_app
from unionflow.auth.throttle import DatabaseCounters, RedisCounters, counter_store
from unionflow.models import AuditLog, LoginThrottle

URL = "/api/membres/me/mot-de-passe"
REDIS_URL = "redis://127.0.0.1:6379/0"


_HASHES: dict[str, str] = {}
_CHEAP = PasswordHasher(time_cost=1, memory_cost=1024)


async def _local_actor(factory, db, password: str = "ancien-secret-1", roles: list[str] | None = None):
    actor = await factory.actor(roles or ["MEMBRE"], with_membre=False)
    # argon2 is deliberately slow: hash each test password once, with low costs (verification reads them
    # from the hash).
    actor.user.password_hash = _HASHES.setdefault(password, _CHEAP.hash(password))
    await db.flush()
    return actor


async def _login(client, email: str, password: str, **kwargs: object):
    return await client.post("/api/auth/token", data={"grant_type": "password", "username": email,
                                                      "password": password}, **kwargs)


async def test_builtin_password_change_rehashes_and_revokes_refresh_tokens(client, factory, db):
    actor = await _local_actor(factory, db)
    tokens = (await _login(client, actor.user.email, "ancien-secret-1")).json()
    old_hash = actor.user.password_hash

    changed = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "ancien-secret-1",
                                                                 "nouveauMotDePasse": "nouveau-secret-1"})
    assert changed.status_code == 204, changed.text
    await db.refresh(actor.user)
    assert actor.user.password_hash != old_hash and actor.user.password_hash.startswith("$argon2")
    assert (await _login(client, actor.user.email, "ancien-secret-1")).status_code == 400
    assert (await _login(client, actor.user.email, "nouveau-secret-1")).status_code == 200
    refresh = await client.post("/api/auth/token", data={"grant_type": "refresh_token",
                                                         "refresh_token": tokens["refresh_token"]})
    assert refresh.status_code == 400
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "CHANGER_MOT_DE_PASSE",
                                                     AuditLog.entite_id == str(actor.user.id)))).scalar_one()
    assert entry.module == "MEMBRES" and entry.severite == "WARNING"


async def test_password_change_rules(client, factory, db):
    actor = await _local_actor(factory, db)
    wrong = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "pas-le-bon-1",
                                                               "nouveauMotDePasse": "nouveau-secret-1"})
    assert wrong.status_code == 400 and wrong.json()["errors"][0]["field"] == "motDePasseActuel"
    weak = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "ancien-secret-1",
                                                              "nouveauMotDePasse": "court"})
    assert weak.status_code == 400 and weak.json()["errors"][0]["field"] == "nouveauMotDePasse"
    same = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "ancien-secret-1",
                                                              "nouveauMotDePasse": "ancien-secret-1"})
    assert same.status_code == 400
    extra = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "a",
                                                               "nouveauMotDePasse": "nouveau-secret-1",
                                                               "userId": str(uuid.uuid4())})
    assert extra.status_code == 400 and [e["field"] for e in extra.json()["errors"]] == ["userId"]
    assert (await client.put(URL, json={"motDePasseActuel": "a", "nouveauMotDePasse": "b"})).status_code == 401


async def test_password_change_attempts_are_limited(client, factory, db, settings):
    actor = await _local_actor(factory, db)
    for _ in range(settings.login_max_attempts):
        wrong = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "pas-le-bon-1",
                                                                   "nouveauMotDePasse": "nouveau-secret-1"})
        assert wrong.status_code == 400
    blocked = await client.put(URL, headers=actor.headers, json={"motDePasseActuel": "ancien-secret-1",
                                                                 "nouveauMotDePasse": "nouveau-secret-1"})
    assert blocked.status_code == 429 and 0 < int(blocked.headers["Retry-After"]) <= settings.login_window_seconds
    assert blocked.headers["content-type"].startswith("application/problem+json")


@pytest.fixture
async def strict(settings, db):
    """An app allowing 2 failures per window (fewer slow argon2 verifications per test)."""
    strict_app = create_app(settings.model_copy(update={"login_max_attempts": 2}))
    strict_app.state.sessionmaker = _savepoints(db)
    yield strict_app
    await strict_app.state.engine.dispose()


@pytest.fixture
async def strict_client(strict):
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=strict), base_url="http://testserver") as http:
        yield http


async def test_login_is_limited_per_email_and_success_resets(strict, strict_client, factory, db):
    settings, client = strict.state.settings, strict_client
    actor = await _local_actor(factory, db, "bon-secret-123")
    limit = settings.login_max_attempts
    for _ in range(limit - 1):
        assert (await _login(client, actor.user.email, "mauvais")).status_code == 400
    assert (await _login(client, actor.user.email, "bon-secret-123")).status_code == 200
    for _ in range(limit):
        assert (await _login(client, actor.user.email.upper(), "mauvais")).status_code == 400
    blocked = await _login(client, actor.user.email, "bon-secret-123")
    assert blocked.status_code == 429, blocked.text
    assert 0 < int(blocked.headers["Retry-After"]) <= settings.login_window_seconds
    # Another account from the same address is not affected.
    other = await _local_actor(factory, db, "autre-secret-123")
    assert (await _login(client, other.user.email, "autre-secret-123")).status_code == 200
    rows = (await db.execute(select(LoginThrottle))).scalars().all()
    assert rows and all(actor.user.email not in r.key for r in rows)  # hashed keys


async def test_login_is_limited_per_client_ip(strict, factory, db):
    from unionflow.auth.throttle import IP_LIMIT_FACTOR

    app, settings = strict, strict.state.settings

    victim = await _local_actor(factory, db, "bon-secret-123")
    # Existing accounts with cheap hashes: unknown e-mails are checked against a full-cost dummy hash.
    targets = [await _local_actor(factory, db, "bon-secret-123")
               for _ in range(settings.login_max_attempts * IP_LIMIT_FACTOR)]
    transport = httpx.ASGITransport(app=app, client=(f"10.9.{uuid.uuid4().int % 250}.7", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as sprayer:
        for target in targets:
            assert (await _login(sprayer, target.user.email, "devine")).status_code == 400
        assert (await _login(sprayer, victim.user.email, "bon-secret-123")).status_code == 429
    other = httpx.ASGITransport(app=app, client=("10.8.8.8", 4000))
    async with httpx.AsyncClient(transport=other, base_url="http://testserver") as elsewhere:
        assert (await _login(elsewhere, victim.user.email, "bon-secret-123")).status_code == 200


WINDOW = 5


@pytest.mark.parametrize("backend", ["database", "redis"])
async def test_window_is_fixed_and_expires(app, db, backend):
    import asyncio

    key = f"test:{uuid.uuid4().hex}"
    if backend == "redis":
        store = RedisCounters(REDIS_URL, prefix=f"unionflow-test:{uuid.uuid4().hex}:")
    else:
        store = DatabaseCounters(app.state.sessionmaker, window=WINDOW)
    # The window must outlast the three writes below even on a loaded host (at 1 s it did not, once in a while):
    # the count would restart mid-test.
    for _ in range(2):
        await store.failure(key, WINDOW)
    assert await store.retry_after(key, 3) is None
    await store.failure(key, WINDOW)
    assert 0 < (await store.retry_after(key, 3) or 0) <= WINDOW
    await asyncio.sleep(WINDOW + 0.1)
    assert await store.retry_after(key, 3) is None
    await store.failure(key, WINDOW)  # a new window starts at one failure
    assert await store.retry_after(key, 2) is None
    await store.reset(key, db)
    if backend == "redis":
        await store.client.aclose()


@pytest.mark.parametrize("backend", ["database", "redis"])
async def test_counting_every_call_answers_the_wait_in_one_round_trip(app, db, backend):
    """The phone gateways' and the public payment code's limit (``compter``): every call counts, the call over
    the limit gets the seconds left in the window, and a new window starts after it."""
    import asyncio

    key = f"test:{uuid.uuid4().hex}"
    if backend == "redis":
        store = RedisCounters(REDIS_URL, prefix=f"unionflow-test:{uuid.uuid4().hex}:")
    else:
        store = DatabaseCounters(app.state.sessionmaker, window=3600)  # the call's own window wins
    assert [await store.compter(key, 2, WINDOW) for _ in range(2)] == [None, None]
    over = [await store.compter(key, 2, WINDOW) for _ in range(2)]
    assert all(0 < (wait or 0) <= WINDOW for wait in over), over
    await asyncio.sleep(WINDOW + 0.1)
    assert await store.compter(key, 2, WINDOW) is None
    await store.reset(key, db)
    if backend == "redis":
        await store.client.aclose()


async def test_redis_is_used_when_configured_and_shared(settings, factory, db):
    redis_app = create_app(settings.model_copy(update={"redis_url": REDIS_URL}))
    scope = {"type": "http", "app": redis_app, "headers": [], "method": "GET", "path": "/"}
    assert isinstance(counter_store(Request(scope)), RedisCounters)
    # Through HTTP, with a store of a unique prefix so that parallel runs never share counters.
    store = RedisCounters(REDIS_URL, prefix=f"unionflow-test:{uuid.uuid4().hex}:")
    redis_app.state.throttle_store = store
    redis_app.state.sessionmaker = _savepoints(db)
    actor = await _local_actor(factory, db, "bon-secret-123")
    # Counted, not asserted empty: a test that ran before without the ``db`` fixture may have committed rows.
    rows_before = len((await db.execute(select(LoginThrottle))).all())
    transport = httpx.ASGITransport(app=redis_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        for _ in range(settings.login_max_attempts):
            assert (await _login(http, actor.user.email, "mauvais")).status_code == 400
        blocked = await _login(http, actor.user.email, "bon-secret-123")
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
    keys = [k async for k in store.client.scan_iter(match=store.prefix + "*")]
    assert len(keys) == 2  # one per e-mail, one per address
    assert len((await db.execute(select(LoginThrottle))).all()) == rows_before
    await store.client.delete(*keys)
    await store.client.aclose()
    await redis_app.state.engine.dispose()


def _savepoints(db):
    from sqlalchemy.ext.asyncio import async_sessionmaker

    return async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint", expire_on_commit=False)


async def test_concurrent_failures_are_all_counted(app, committed_db):
    """Workers record failures at the same time: the atomic upsert loses none (real commits, real connections)."""
    import asyncio

    store = DatabaseCounters(app.state.sessionmaker, window=300)
    key = f"test:{uuid.uuid4().hex}"
    await asyncio.gather(*(store.failure(key, 300) for _ in range(8)))
    row = (await committed_db.execute(select(LoginThrottle).where(LoginThrottle.key == key))).scalar_one()
    assert row.failures == 8
    assert await store.retry_after(key, 8) is not None and await store.retry_after(key, 9) is None
