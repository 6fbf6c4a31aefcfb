"""GET /metrics: Prometheus text, its own protection (token or network allowlist), request, pool, job, payment,
LCB-FT, notification and backup metrics."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.notifications import BASE as NOTIFICATIONS
from tests.factories.notifications import envoi, staff
from tests.notifications.serveurs import sms_gateway, smtp_server
from unionflow.core import metrics
from unionflow.models import AlerteLcbFt, Sauvegarde
from unionflow.notifications.delivery import LivreurNotifications


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


async def scrape(client, **headers: str) -> str:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


@pytest.fixture
def metrics_settings(app) -> Iterator[object]:
    """Swap the app's settings for one test (the route reads them per request)."""
    original = app.state.settings

    def use(**changes: object) -> None:
        app.state.settings = original.model_copy(update=changes)

    yield use
    app.state.settings = original


async def test_requests_are_counted_by_route_template_method_and_status(client, db):
    before = await scrape(client)
    for _ in range(3):
        assert (await client.get("/health/live")).status_code == 200
    await client.get("/api/membres/00000000-0000-0000-0000-000000000000")  # 401, templated route
    after = await scrape(client)
    live = {"method": "GET", "route": "/health/live", "status": "200"}
    assert value(after, "unionflow_http_requests_total", **live) - \
        value(before, "unionflow_http_requests_total", **live) == 3
    assert value(after, "unionflow_http_request_duration_seconds_count", **live) - \
        value(before, "unionflow_http_request_duration_seconds_count", **live) == 3
    refused = {"method": "GET", "route": "/api/membres/{id}", "status": "401"}
    assert value(after, "unionflow_http_requests_total", **refused) >= 1
    assert "unionflow_db_pool_size" in after and "unionflow_db_pool_connections_in_use" in after


async def test_access_needs_the_token_or_an_allowed_network(client, metrics_settings):
    # The test client connects from 127.0.0.1, inside the default allowlist.
    assert (await client.get("/metrics")).status_code == 200
    metrics_settings(metrics_allowed_networks=[])
    refused = await client.get("/metrics")
    assert refused.status_code == 403 and refused.headers["content-type"].startswith("application/problem+json")
    metrics_settings(metrics_allowed_networks=["10.0.0.0/8"], metrics_token="scrape-token-0123456789")
    assert (await client.get("/metrics")).status_code == 401
    assert (await client.get("/metrics", headers={"Authorization": "Bearer wrong-token"})).status_code == 401
    ok = await client.get("/metrics", headers={"Authorization": "Bearer scrape-token-0123456789"})
    assert ok.status_code == 200 and "unionflow_http_requests_total" in ok.text
    # A user's OIDC token is not a scrape token.
    metrics_settings(metrics_allowed_networks=["127.0.0.0/8"], metrics_token="scrape-token-0123456789")
    assert (await client.get("/metrics", headers={"Authorization": "Bearer eyJ.x.y"})).status_code == 401


async def test_validated_payments_and_amounts_by_channel(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, member.membre, org, 3000)
    before = await scrape(client)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2500", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(due.id)}]})
    assert paid.status_code == 201, paid.text
    refused = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "9000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(due.id)}]})
    assert refused.status_code == 400
    after = await scrape(client)
    assert value(after, "unionflow_paiements_valides_total", methode="ESPECES") - \
        value(before, "unionflow_paiements_valides_total", methode="ESPECES") == 1
    assert value(after, "unionflow_paiements_valides_montant_total", methode="ESPECES", devise="XOF") - \
        value(before, "unionflow_paiements_valides_montant_total", methode="ESPECES", devise="XOF") == 2500


async def test_business_counters_move_only_when_the_transaction_commits(db):
    counted: list[str] = []
    async with db.begin_nested():
        metrics.after_commit(db, lambda: counted.append("savepoint"))
    assert counted == []
    await db.rollback()
    assert counted == []
    metrics.after_commit(db, lambda: counted.append("commit"))
    await db.commit()
    assert counted == ["commit"]


async def test_job_runs_failures_and_durations(client):
    before = await scrape(client)
    with metrics.job_run("essai-metrics") as run:
        run.counts["traitees"] = 2
    with pytest.raises(RuntimeError), metrics.job_run("essai-metrics"):
        raise RuntimeError("échec volontaire")
    after = await scrape(client)
    for outcome in ("succes", "echec"):
        assert value(after, "unionflow_job_runs_total", job_name="essai-metrics", outcome=outcome) - \
            value(before, "unionflow_job_runs_total", job_name="essai-metrics", outcome=outcome) == 1
    assert value(after, "unionflow_job_duration_seconds_count", job_name="essai-metrics") - \
        value(before, "unionflow_job_duration_seconds_count", job_name="essai-metrics") == 2


async def test_lcb_ft_alerts_raised_by_a_large_cash_payment_are_counted(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, member.membre, org, 6_000_000)
    before = await scrape(client)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "6000000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(due.id)}]})
    assert paid.status_code == 201, paid.text
    raised = (await db.execute(select(AlerteLcbFt.type_alerte)
                               .where(AlerteLcbFt.paiement_id == uuid.UUID(paid.json()["id"])))).scalars().all()
    assert raised
    after = await scrape(client)
    for type_alerte in set(raised):
        assert value(after, "unionflow_alertes_lcb_ft_total", type_alerte=type_alerte) - \
            value(before, "unionflow_alertes_lcb_ft_total", type_alerte=type_alerte) == raised.count(type_alerte)


async def test_notifications_delivered_and_given_up_are_counted(app, client, factory, db, settings):
    org, secretaire = await staff(factory)
    refused = await factory.membre(org, email=None, telephone="+221770001111")
    mailed = await factory.membre(org)
    for member in (refused, mailed):
        sent = await client.post(NOTIFICATIONS, headers=secretaire.headers,
                                 json=envoi(org.id, membreIds=[str(member.id)]))
        assert sent.status_code in (200, 201), sent.text
    before = await scrape(client)
    with sms_gateway(status=400) as (_received, url), smtp_server() as (_mailbox, port):
        bilan = await LivreurNotifications(app.state.sessionmaker, settings.model_copy(update={
            "sms_gateway_url": url, "smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False,
            "notification_backoff_seconds": 600})).run()
    assert bilan.envoyees >= 1 and bilan.echouees >= 1
    after = await scrape(client)

    def delta(canal: str, resultat: str) -> float:
        return value(after, "unionflow_notifications_total", canal=canal, resultat=resultat) - \
            value(before, "unionflow_notifications_total", canal=canal, resultat=resultat)

    assert delta("SMS", "ECHOUEE") == bilan.echouees
    assert delta("EMAIL", "ENVOYEE") + delta("SMS", "ENVOYEE") == bilan.envoyees


async def test_backup_age_is_measured_at_scrape_time(client, db):
    await db.execute(Sauvegarde.__table__.delete())
    assert math.isinf(value(await scrape(client), "unionflow_sauvegarde_derniere_age_seconds"))
    done = datetime.now(UTC) - timedelta(hours=3)
    db.add(Sauvegarde(nom="s1", type="AUTOMATIQUE", statut="TERMINEE", moteur="sqlite", fichier="s1.db",
                      cree_par="systeme", date_creation=done, date_fin=done))
    await db.flush()
    age = value(await scrape(client), "unionflow_sauvegarde_derniere_age_seconds")
    assert 3 * 3600 - 5 < age < 3 * 3600 + 60


async def test_no_label_collides_with_the_labels_prometheus_sets_itself(client, db):
    """A real scrape sets ``job`` and ``instance`` on every series: ours would be renamed ``exported_job`` and the
    documented queries would return nothing (issue 21)."""
    with metrics.job_run("essai-etiquettes"):
        pass
    labels = {name for (_, pairs) in samples(await scrape(client)) for name, _ in pairs}
    assert "job_name" in labels and not labels & {"job", "instance"}


async def test_the_schema_and_the_docs_are_counted_under_their_route(client, db):
    before = await scrape(client)
    for path in ("/openapi.json", "/docs"):
        assert (await client.get(path)).status_code == 200
    after = await scrape(client)
    for path in ("/openapi.json", "/docs"):
        labels = {"method": "GET", "route": path, "status": "200"}
        assert value(after, "unionflow_http_requests_total", **labels) - \
            value(before, "unionflow_http_requests_total", **labels) == 1, path
