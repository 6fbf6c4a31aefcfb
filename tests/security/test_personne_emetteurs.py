"""A person is (issuer, subject) for every row tied to its owner (issue 21, finding 1): a token of another issuer
whose ``sub`` equals a local account's id neither sees nor replays that account's documents, favourites, tickets,
feedback, background tasks and idempotency keys. The external issuer is the loopback JWKS of test_external_oidc."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from tests.documents.fichiers import PDF_BYTES
from tests.factories.cotisations import cotisation
from tests.factories.documents import upload
from tests.factories.tickets import open_ticket
from tests.security.test_external_oidc import AUDIENCE, ISSUER, _auth, jwks  # noqa: F401 (fixture)
from unionflow.app import create_app
from unionflow.core.auth import person_key
from unionflow.models import Document, Paiement


@pytest.fixture
async def deux(jwks, settings, db) -> AsyncIterator[httpx.AsyncClient]:  # noqa: F811
    """The app trusting both issuers; exports over 0 lines become tasks (so a task is created by a request)."""
    _server, url = jwks
    app = create_app(settings.model_copy(update={"oidc_issuer": ISSUER, "oidc_jwks_url": url,
                                                 "oidc_audience": AUDIENCE, "tache_seuil_export_lignes": 0}))
    app.state.sessionmaker = async_sessionmaker(bind=db.bind, join_transaction_mode="create_savepoint",
                                                expire_on_commit=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield http
    await app.state.engine.dispose()


def _twin(jwks, actor, roles: list[str]) -> dict[str, str]:  # noqa: F811
    """Headers of a token from the external issuer carrying the local account's subject."""
    server, _url = jwks
    if "twin" not in server.keys:
        server.new_key("twin")
    server.published = ["twin"]
    return _auth(server.token("twin", roles, sub=str(actor.user.id)))


async def test_rows_owned_by_a_subject_are_not_owned_by_the_same_subject_of_another_issuer(
        jwks, deux, factory, db, settings):  # noqa: F811
    org = await factory.organisation()
    a = await factory.actor(["USER"], organisation=org)
    b = _twin(jwks, a, ["USER"])

    doc = (await upload(deux, a.headers, PDF_BYTES)).json()
    stored = (await db.execute(select(Document.proprietaire_sub)
                               .where(Document.id == uuid.UUID(doc["id"])))).scalar_one()
    assert stored == person_key(settings.issuer, str(a.user.id))
    favori = await deux.post("/api/favoris", headers=a.headers, json={"typeCible": "DOCUMENT", "cibleId": doc["id"]})
    assert favori.status_code == 201, favori.text
    feedback = await deux.post("/api/feedback", headers=a.headers, json={"type": "BUG", "message": "Reçu absent"})
    assert feedback.status_code == 201, feedback.text
    ticket = await open_ticket(deux, a, org.id)

    # A sees all of it.
    assert [d["id"] for d in (await deux.get("/api/documents/mes-documents", headers=a.headers)).json()] == [doc["id"]]
    assert (await deux.get("/api/favoris", headers=a.headers)).json()["totalElements"] == 1
    assert (await deux.get("/api/feedback/mes-feedbacks", headers=a.headers)).json()["totalElements"] == 1
    # B, same subject from another issuer, sees none of it.
    assert (await deux.get("/api/documents/mes-documents", headers=b)).json() == []
    assert (await deux.get(f"/api/documents/{doc['id']}", headers=b)).status_code == 404
    assert (await deux.get(f"/api/documents/{doc['id']}/telecharger", headers=b)).status_code == 404
    assert (await deux.get("/api/favoris", headers=b)).json()["totalElements"] == 0
    assert (await deux.get(f"/api/favoris/{favori.json()['id']}", headers=b)).status_code in (404, 405)
    assert (await deux.delete(f"/api/favoris/{favori.json()['id']}", headers=b)).status_code == 404
    assert (await deux.get("/api/feedback/mes-feedbacks", headers=b)).json()["totalElements"] == 0
    assert (await deux.get(f"/api/feedback/{feedback.json()['id']}", headers=b)).status_code == 404
    assert (await deux.get("/api/tickets/mes-tickets", headers=b)).json()["totalElements"] == 0
    assert (await deux.get(f"/api/tickets/{ticket['id']}", headers=b)).status_code == 404
    # And B's own rows are B's: his favourite of the same target is another row, not a conflict with A's.
    assert (await deux.get("/api/favoris", headers=a.headers)).json()["totalElements"] == 1


async def test_a_task_is_followed_only_by_its_creator_of_the_same_issuer(jwks, deux, factory):  # noqa: F811
    org = await factory.organisation()
    a = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    await factory.membre(org)
    started = await deux.get("/api/export/membres", headers=a.headers, params={"format": "csv"})
    assert started.status_code == 202, started.text
    tache = started.headers["Location"]
    assert (await deux.get(tache, headers=a.headers)).status_code == 200
    assert (await deux.get(tache, headers=_twin(jwks, a, ["USER"]))).status_code == 404


async def test_an_idempotency_key_is_not_replayed_to_the_same_subject_of_another_issuer(
        jwks, deux, factory, db):  # noqa: F811
    """Same key, same request: A's retry is his stored answer; B's is his own payment, not A's replayed."""
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    a = await factory.actor(["ADMIN"], with_membre=False)
    b = _twin(jwks, a, ["ADMIN"])
    dues = await cotisation(db, member.membre, org, 10000)
    url, body = f"/api/cotisations/{dues.id}/payer", {"montant": "2500"}
    first = await deux.put(url, headers={**a.headers, "Idempotency-Key": "guichet-1"}, json=body)
    assert first.status_code == 200, first.text
    again = await deux.put(url, headers={**a.headers, "Idempotency-Key": "guichet-1"}, json=body)
    assert again.headers.get("Idempotent-Replayed") == "true"
    other = await deux.put(url, headers={**b, "Idempotency-Key": "guichet-1"}, json=body)
    assert other.status_code == 200, other.text
    assert other.headers.get("Idempotent-Replayed") is None
    paid = (await db.execute(select(func.count()).select_from(Paiement)
                             .where(Paiement.membre_id == member.membre.id))).scalar_one()
    assert paid == 2


async def test_an_account_is_ones_own_only_from_its_own_issuer(jwks, deux, factory):  # noqa: F811
    """Administering local accounts: a super administrator of the external issuer whose ``sub`` equals a local
    super administrator's id is another person, so that account is not "his own" (no 409), while its owner still
    cannot disable himself nor drop his own SUPER_ADMIN role."""
    a = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    b = _twin(jwks, a, ["SUPER_ADMIN"])
    url = f"/api/admin/users/{a.user.id}"
    assert (await deux.put(url, headers=a.headers, json={"enabled": False})).status_code == 409
    assert (await deux.put(f"{url}/roles", headers=a.headers, json=["ADMIN"])).status_code == 409
    roles = await deux.put(f"{url}/roles", headers=b, json=["SUPER_ADMIN", "ADMIN"])
    assert roles.status_code == 200, roles.text
    disabled = await deux.put(url, headers=b, json={"enabled": False})
    assert disabled.status_code == 200 and disabled.json()["enabled"] is False
