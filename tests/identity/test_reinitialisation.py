""""Mot de passe oublié": the link really leaves through the outbox to a loopback SMTP server; the token is
single-use, expiring, hashed at rest; the request answers the same whether the account exists or not."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select, update

from tests.notifications.serveurs import smtp_server
from unionflow.app import create_app
from unionflow.core.passwords import hash_password
from unionflow.models import AuditLog, JetonReinitialisation, Notification, RefreshToken
from unionflow.models.base import utcnow
from unionflow.notifications.delivery import LivreurNotifications

DEMANDE = "/api/auth/mot-de-passe-oublie"
RESET = "/api/auth/reinitialiser-mot-de-passe"
TOKEN = "/api/auth/token"


async def _account(factory, db, password: str = "ancien-secret-123", *, with_membre: bool = False):
    actor = await factory.actor(["USER"], with_membre=with_membre)
    actor.user.password_hash = hash_password(password)
    await db.flush()
    return actor


async def _deliver(app, settings) -> list:
    with smtp_server() as (mailbox, port):
        tuned = settings.model_copy(update={"smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False})
        await LivreurNotifications(app.state.sessionmaker, tuned).run()
    return mailbox.messages


def _token(message) -> str:
    body = message.get_payload(decode=True).decode()
    found = re.search(r"\?jeton=([A-Za-z0-9_\-]+)", body)
    assert found, body
    return found.group(1)


async def _login(client, email: str, password: str) -> httpx.Response:
    return await client.post(TOKEN, data={"grant_type": "password", "username": email, "password": password})


async def test_reset_link_goes_out_by_email_and_works_once(app, client, factory, db, settings):
    actor = await _account(factory, db, with_membre=True)
    session = (await _login(client, actor.user.email, "ancien-secret-123")).json()

    asked = await client.post(DEMANDE, json={"email": actor.user.email.upper()})
    assert asked.status_code == 202, asked.text
    queued = (await db.execute(select(Notification).where(Notification.adresse == actor.user.email))).scalar_one()
    # An account e-mail, in nobody's inbox (not even the member's): it carries a secret.
    assert queued.membre_id is None and queued.organisation_id is None and queued.statut == "EN_ATTENTE"
    inbox = await client.get("/api/notifications/mes", headers=actor.headers)
    assert inbox.status_code == 200 and inbox.json()["content"] == []
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    outbox = await client.get("/api/notifications", headers=admin.headers, params={"size": 200})
    assert outbox.status_code == 200 and str(queued.id) not in outbox.text
    assert (await client.get(f"/api/notifications/{queued.id}", headers=admin.headers)).status_code == 404

    messages = await _deliver(app, settings)
    mine = [m for m in messages if m["To"] == actor.user.email]
    assert len(mine) == 1 and "mot de passe UnionFlow" in mine[0]["Subject"]
    token = _token(mine[0])
    assert "http://testserver/reinitialiser-mot-de-passe?jeton=" in mine[0].get_payload(decode=True).decode()
    # At rest: only the hash, and the outbox body no longer holds the link once sent.
    stored = (await db.execute(select(JetonReinitialisation))).scalar_one()
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in stored.token_hash
    sent = await db.get(Notification, queued.id, populate_existing=True)
    assert sent is not None and sent.statut == "ENVOYEE" and token not in sent.corps

    weak = await client.post(RESET, json={"jeton": token, "nouveauMotDePasse": "court"})
    assert weak.status_code == 400 and weak.json()["errors"][0]["field"] == "nouveauMotDePasse"
    done = await client.post(RESET, json={"jeton": token, "nouveauMotDePasse": "nouveau-secret-456"})
    assert done.status_code == 204, done.text
    assert (await _login(client, actor.user.email, "ancien-secret-123")).status_code == 400
    assert (await _login(client, actor.user.email, "nouveau-secret-456")).status_code == 200
    # Sessions opened with the old password are over.
    refreshed = await client.post(TOKEN, data={"grant_type": "refresh_token",
                                               "refresh_token": session["refresh_token"]})
    assert refreshed.status_code == 400
    again = await client.post(RESET, json={"jeton": token, "nouveauMotDePasse": "troisieme-secret-789"})
    assert again.status_code == 400 and again.json()["errors"][0]["field"] == "jeton"
    assert (await _login(client, actor.user.email, "nouveau-secret-456")).status_code == 200
    actions = (await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == str(actor.user.id))
                                )).scalars().all()
    assert {"DEMANDER_REINITIALISATION", "REINITIALISER_MOT_DE_PASSE"} <= set(actions)


async def test_expired_and_superseded_tokens_are_refused(app, client, factory, db, settings):
    actor = await _account(factory, db)
    assert (await client.post(DEMANDE, json={"email": actor.user.email})).status_code == 202
    assert (await client.post(DEMANDE, json={"email": actor.user.email})).status_code == 202
    first, second = (_token(m) for m in await _deliver(app, settings))
    superseded = await client.post(RESET, json={"jeton": first, "nouveauMotDePasse": "nouveau-secret-456"})
    assert superseded.status_code == 400
    await db.execute(update(JetonReinitialisation).where(JetonReinitialisation.used_at.is_(None))
                     .values(expires_at=utcnow() - timedelta(seconds=1)))
    expired = await client.post(RESET, json={"jeton": second, "nouveauMotDePasse": "nouveau-secret-456"})
    assert expired.status_code == 400
    assert expired.headers["content-type"].startswith("application/problem+json")
    unknown = await client.post(RESET, json={"jeton": "x" * 43, "nouveauMotDePasse": "nouveau-secret-456"})
    same = {"instance": None, "requestId": None}  # per request by construction
    assert unknown.status_code == 400 and unknown.json() | same == expired.json() | same
    assert (await _login(client, actor.user.email, "ancien-secret-123")).status_code == 200


async def test_no_account_existence_oracle(app, client, factory, db, settings):
    actor = await _account(factory, db)
    disabled = await _account(factory, db)
    disabled.user.enabled = False
    await db.flush()
    answers = [await client.post(DEMANDE, json={"email": email})
               for email in (actor.user.email, "personne@example.sn", disabled.user.email)]
    assert {a.status_code for a in answers} == {202}
    assert len({a.text for a in answers}) == 1
    per_request = {"content-length", "x-request-id"}
    assert len({tuple(sorted((k, v) for k, v in a.headers.items() if k not in per_request)) for a in answers}) == 1
    count = (await db.execute(select(func.count()).select_from(Notification)
                              .where(Notification.type_notification == "REINITIALISATION_MOT_DE_PASSE"))).scalar_one()
    assert count == 1
    assert (await client.post(DEMANDE, json={"email": actor.user.email, "role": "ADMIN"})).status_code == 400


@pytest.fixture
async def strict_app(settings, db):
    from sqlalchemy.ext.asyncio import async_sessionmaker

    strict = create_app(settings.model_copy(update={"login_max_attempts": 2}))
    strict.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                   expire_on_commit=False)
    yield strict
    await strict.state.engine.dispose()


async def test_requests_are_throttled_per_email_silently_and_per_ip_with_429(strict_app, factory, db):
    from unionflow.auth.throttle import IP_LIMIT_FACTOR

    actor = await _account(factory, db)
    limit = strict_app.state.settings.login_max_attempts
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=strict_app), base_url="http://testserver") as c:
        answers = [await c.post(DEMANDE, json={"email": actor.user.email}) for _ in range(limit + 2)]
        assert {a.status_code for a in answers} == {202}
        queued = (await db.execute(select(func.count()).select_from(Notification)
                                   .where(Notification.adresse == actor.user.email))).scalar_one()
        # The victim's mailbox is not flooded, and the caller cannot tell.
        assert queued == limit
        for i in range(limit * IP_LIMIT_FACTOR - limit - 2):
            assert (await c.post(DEMANDE, json={"email": f"spray{i}@example.sn"})).status_code == 202
        blocked = await c.post(DEMANDE, json={"email": "encore@example.sn"})
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0


async def test_refresh_tokens_are_revoked_by_the_reset(app, client, factory, db, settings):
    actor = await _account(factory, db)
    for _ in range(2):
        assert (await _login(client, actor.user.email, "ancien-secret-123")).status_code == 200
    await client.post(DEMANDE, json={"email": actor.user.email})
    [message] = await _deliver(app, settings)
    assert (await client.post(RESET, json={"jeton": _token(message),
                                           "nouveauMotDePasse": "nouveau-secret-456"})).status_code == 204
    live = (await db.execute(select(func.count()).select_from(RefreshToken).where(
        RefreshToken.user_id == actor.user.id, RefreshToken.revoked_at.is_(None)))).scalar_one()
    assert live == 0
