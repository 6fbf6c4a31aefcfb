"""Outbound webhooks end to end: a change commits an outbox row, the job POSTs it signed to a receiver on
loopback, failures are retried with exponential backoff, recorded, replayable, and a receiver that keeps
failing gets its subscription disabled with a notice to the organisation's administrators."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from tests.webhooks.recepteur import receiver
from unionflow.models import AbonnementWebhook, AuditLog, LivraisonWebhook, Notification
from unionflow.models.base import utcnow
from unionflow.webhooks import emission
from unionflow.webhooks.delivery import livrer_webhooks
from unionflow.webhooks.emission import EvenementWebhook

BASE = "/api/webhooks"


@pytest.fixture(autouse=True)
def loopback_allowed(settings, monkeypatch):
    monkeypatch.setattr(settings, "webhook_autoriser_adresses_privees", True)


def _job_settings(settings, **values):
    base = {"webhook_backoff_seconds": 60, "webhook_max_tentatives": 5, "webhook_echecs_avant_desactivation": 10}
    return settings.model_copy(update={**base, **values})


async def _setup(factory):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    applicant = await factory.actor(["MEMBRE"])
    return org, admin, applicant


async def _subscribe(client, admin, org, url, evenements):
    created = await client.post(f"{BASE}/abonnements", headers=admin.headers, json={
        "organisationId": str(org.id), "url": url, "evenements": evenements})
    assert created.status_code == 201, created.text
    return created.json()


async def _apply_and_approve(client, admin, applicant, org):
    adh = await client.post("/api/adhesions", headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "15000"})
    assert adh.status_code == 201, adh.text
    approved = await client.post(f"/api/adhesions/{adh.json()['id']}/approuver", headers=admin.headers)
    assert approved.status_code == 200, approved.text
    return adh.json()


async def _make_due(db, abonnement_id):
    """Stand in for the passing of the backoff delay."""
    await db.execute(update(LivraisonWebhook).where(LivraisonWebhook.abonnement_id == uuid.UUID(abonnement_id),
                                                    LivraisonWebhook.statut == "EN_ATTENTE")
                     .values(prochaine_tentative=utcnow() - timedelta(seconds=1)))


async def _deliveries(db, abonnement_id):
    rows = await db.execute(select(LivraisonWebhook).where(LivraisonWebhook.abonnement_id == uuid.UUID(abonnement_id))
                            .order_by(LivraisonWebhook.created_at).execution_options(populate_existing=True))
    return list(rows.scalars())


async def test_adhesion_approval_is_delivered_signed(app, client, factory, db, settings):
    org, admin, applicant = await _setup(factory)
    with receiver() as hook:
        abonnement = await _subscribe(client, admin, org, hook.url, ["adhesion.approuvee"])
        hook.secret = abonnement["secret"]
        adh = await _apply_and_approve(client, admin, applicant, org)
        [queued] = await _deliveries(db, abonnement["id"])
        assert queued.statut == "EN_ATTENTE" and queued.evenement == "adhesion.approuvee"

        bilan = await livrer_webhooks(app.state.sessionmaker, _job_settings(settings))

    assert bilan.livrees == 1 and hook.refused_signatures == 0
    [event] = hook.received
    assert event["type"] == "adhesion.approuvee" and event["organisationId"] == str(org.id)
    assert event["donnees"]["adhesionId"] == adh["id"] and event["donnees"]["statut"] == "APPROUVEE"
    assert hook.headers[0]["UnionFlow-Event"] == "adhesion.approuvee"
    [row] = await _deliveries(db, abonnement["id"])
    assert row.statut == "LIVREE" and row.tentatives == 1 and row.dernier_code_http == 200
    assert row.historique[0]["codeHttp"] == 200 and row.date_livraison is not None

    listed = await client.get(f"{BASE}/abonnements/{abonnement['id']}/livraisons", headers=admin.headers)
    assert listed.status_code == 200 and listed.json()["content"][0]["statut"] == "LIVREE"
    assert "secret" not in (await client.get(f"{BASE}/abonnements/{abonnement['id']}", headers=admin.headers)).json()


async def test_event_not_subscribed_and_rolled_back_change_emit_nothing(app, client, factory, db):
    org, admin, applicant = await _setup(factory)
    abonnement = await _subscribe(client, admin, org, "http://127.0.0.1:9/x", ["adhesion.rejetee"])
    await _apply_and_approve(client, admin, applicant, org)
    assert await _deliveries(db, abonnement["id"]) == []
    adh = await client.post("/api/adhesions", headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "1000"})
    # Refused (already a member): the request rolls back, and with it any outbox row.
    assert adh.status_code == 409
    assert await _deliveries(db, abonnement["id"]) == []


async def test_failing_receiver_is_retried_with_backoff_then_recovers(app, client, factory, db, settings):
    org, admin, applicant = await _setup(factory)
    job = _job_settings(settings)
    with receiver(codes=[500, 503, 200]) as hook:
        abonnement = await _subscribe(client, admin, org, hook.url, ["adhesion.approuvee"])
        hook.secret = abonnement["secret"]
        await _apply_and_approve(client, admin, applicant, org)

        first = await livrer_webhooks(app.state.sessionmaker, job)
        [row] = await _deliveries(db, abonnement["id"])
        assert first.reportees == 1 and row.statut == "EN_ATTENTE" and row.dernier_code_http == 500
        delay = row.prochaine_tentative - utcnow()
        assert timedelta(seconds=50) < delay <= timedelta(seconds=60)
        # Not due yet: a new run sends nothing.
        assert (await livrer_webhooks(app.state.sessionmaker, job)).traitees == 0

        await _make_due(db, abonnement["id"])
        await livrer_webhooks(app.state.sessionmaker, job)
        [row] = await _deliveries(db, abonnement["id"])
        delay = row.prochaine_tentative - utcnow()
        assert row.tentatives == 2 and timedelta(seconds=110) < delay <= timedelta(seconds=120)

        await _make_due(db, abonnement["id"])
        third = await livrer_webhooks(app.state.sessionmaker, job)

    assert third.livrees == 1
    [row] = await _deliveries(db, abonnement["id"])
    assert row.statut == "LIVREE" and row.tentatives == 3
    assert [a["codeHttp"] for a in row.historique] == [500, 503, 200]
    # Every attempt carried the same event, correctly signed.
    assert len({e["id"] for e in hook.received}) == 1 and len(hook.received) == 3 and hook.refused_signatures == 0
    sub = await db.get(AbonnementWebhook, uuid.UUID(abonnement["id"]), populate_existing=True)
    assert sub is not None and sub.echecs_consecutifs == 0 and sub.actif


async def test_replay_resends_the_same_event(app, client, factory, db, settings):
    org, admin, applicant = await _setup(factory)
    with receiver() as hook:
        abonnement = await _subscribe(client, admin, org, hook.url, ["adhesion.approuvee"])
        hook.secret = abonnement["secret"]
        await _apply_and_approve(client, admin, applicant, org)
        await livrer_webhooks(app.state.sessionmaker, _job_settings(settings))
        [original] = await _deliveries(db, abonnement["id"])

        replayed = await client.post(f"{BASE}/livraisons/{original.id}/rejouer", headers=admin.headers)
        assert replayed.status_code == 201, replayed.text
        assert replayed.json()["rejeuDe"] == str(original.id) and replayed.json()["statut"] == "EN_ATTENTE"
        await livrer_webhooks(app.state.sessionmaker, _job_settings(settings))

    assert len(hook.received) == 2 and hook.received[0] == hook.received[1]
    assert {r.statut for r in await _deliveries(db, abonnement["id"])} == {"LIVREE"}
    assert (await db.execute(select(AuditLog).where(AuditLog.type_action == "REJOUER",
                                                    AuditLog.entite_id == replayed.json()["id"]))).first()


async def test_subscription_disabled_after_repeated_failures_and_admins_notified(app, client, factory, db,
                                                                                 settings):
    org, admin, applicant = await _setup(factory)
    job = _job_settings(settings, webhook_echecs_avant_desactivation=2)
    with receiver(codes=[500]) as hook:
        abonnement = await _subscribe(client, admin, org, hook.url, ["adhesion.approuvee"])
        hook.secret = abonnement["secret"]
        await _apply_and_approve(client, admin, applicant, org)
        await livrer_webhooks(app.state.sessionmaker, job)
        await _make_due(db, abonnement["id"])
        bilan = await livrer_webhooks(app.state.sessionmaker, job)
        assert bilan.abonnements_desactives == 1

        sub = await db.get(AbonnementWebhook, uuid.UUID(abonnement["id"]), populate_existing=True)
        assert sub is not None and not sub.actif and sub.desactive_le is not None
        assert "2 échecs consécutifs" in (sub.motif_desactivation or "")
        notice = (await db.execute(select(Notification).where(
            Notification.membre_id == admin.membre.id,
            Notification.type_notification == "WEBHOOK_DESACTIVE"))).scalar_one()
        assert hook.url in notice.corps and notice.organisation_id == org.id
        # Disabled: its pending delivery is not sent any more, and replays are refused until reactivation.
        await _make_due(db, abonnement["id"])
        assert (await livrer_webhooks(app.state.sessionmaker, job)).traitees == 0
        [pending] = await _deliveries(db, abonnement["id"])
        refused = await client.post(f"{BASE}/livraisons/{pending.id}/rejouer", headers=admin.headers)
        assert refused.status_code == 400

        hook.codes = [200]
        reactivated = await client.put(f"{BASE}/abonnements/{abonnement['id']}", headers=admin.headers,
                                       json={"actif": True})
        assert reactivated.status_code == 200 and reactivated.json()["echecsConsecutifs"] == 0
        await _make_due(db, abonnement["id"])
        assert (await livrer_webhooks(app.state.sessionmaker, job)).livrees == 1


async def test_delivery_to_a_private_address_is_refused_when_not_allowed(app, client, factory, db, settings):
    org, admin, applicant = await _setup(factory)
    abonnement = await _subscribe(client, admin, org, "http://127.0.0.1:9/hook", ["adhesion.approuvee"])
    await _apply_and_approve(client, admin, applicant, org)
    strict = _job_settings(settings, webhook_autoriser_adresses_privees=False)
    bilan = await livrer_webhooks(app.state.sessionmaker, strict)
    [row] = await _deliveries(db, abonnement["id"])
    assert bilan.echouees == 1 and row.statut == "ECHOUEE" and row.dernier_code_http is None
    assert "adresse privée" in (row.derniere_erreur or "")


@pytest.mark.postgresql_only
async def test_two_workers_deliver_each_event_once(app, committed_factory, committed_db, settings):
    org = await committed_factory.organisation()
    with receiver() as hook:
        hook.secret = "whsec_concurrent"
        committed_db.add(AbonnementWebhook(organisation_id=org.id, url=hook.url, secret=hook.secret, actif=True,
                                           evenements=["paiement.valide"], echecs_consecutifs=0))
        await committed_db.flush()
        for n in range(20):
            await emission.emettre(committed_db, org.id, EvenementWebhook.PAIEMENT_VALIDE, {"n": n})
        await committed_db.commit()
        job = _job_settings(settings, webhook_lot=3)
        first, second = await asyncio.gather(livrer_webhooks(app.state.sessionmaker, job),
                                             livrer_webhooks(app.state.sessionmaker, job))
    assert first.livrees + second.livrees == 20
    assert len(hook.received) == 20 and len({e["id"] for e in hook.received}) == 20
