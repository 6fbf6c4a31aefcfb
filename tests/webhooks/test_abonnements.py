"""Subscriptions: who may manage them, which URLs are accepted, secrets shown once and rotated, audit."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from unionflow.models import AuditLog

BASE = "/api/webhooks/abonnements"


async def _setup(factory):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    return org, admin


def _body(org, url="https://partenaire.example.sn/hooks", evenements=("paiement.valide",)):
    return {"organisationId": str(org.id), "url": url, "evenements": list(evenements)}


@pytest.mark.parametrize("url", ["ftp://partenaire.example.sn/x", "file:///etc/passwd", "http://127.0.0.1:8080/x",
                                 "http://localhost/x", "http://10.0.0.5/x", "http://169.254.169.254/latest",
                                 "http://[::1]/x", "https://user:pw@partenaire.example.sn/x"])
async def test_unsafe_urls_are_refused(client, factory, url):
    org, admin = await _setup(factory)
    response = await client.post(BASE, headers=admin.headers, json=_body(org, url))
    assert response.status_code == 400, response.text


async def test_loopback_is_accepted_only_when_allowed_and_schemes_stay_restricted(client, factory, settings,
                                                                                   monkeypatch):
    org, admin = await _setup(factory)
    monkeypatch.setattr(settings, "webhook_autoriser_adresses_privees", True)
    assert (await client.post(BASE, headers=admin.headers, json=_body(org, "http://127.0.0.1:9/x"))).status_code == 201
    assert (await client.post(BASE, headers=admin.headers, json=_body(org, "ftp://127.0.0.1/x"))).status_code == 400


async def test_input_rules(client, factory):
    org, admin = await _setup(factory)
    unknown_event = await client.post(BASE, headers=admin.headers, json=_body(org, evenements=["membre.supprime"]))
    server_field = await client.post(BASE, headers=admin.headers, json={**_body(org), "secret": "mine"})
    none = await client.post(BASE, headers=admin.headers, json=_body(org, evenements=[]))
    assert unknown_event.status_code == server_field.status_code == none.status_code == 400
    catalogue = await client.get("/api/webhooks/evenements", headers=admin.headers)
    assert {"adhesion.approuvee", "paiement.rembourse", "alerte_lcbft.levee"} <= {e["code"] for e in catalogue.json()}


async def test_only_the_organisations_administrators_manage_its_subscriptions(client, factory):
    org, admin = await _setup(factory)
    _other_org, other_admin = await _setup(factory)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    created = await client.post(BASE, headers=admin.headers, json=_body(org))
    assert created.status_code == 201
    sub_id = created.json()["id"]

    assert (await client.post(BASE, headers=treasurer.headers, json=_body(org))).status_code == 403
    # Another organisation's administrator: the organisation is visible in the directory, managing it is not.
    assert (await client.post(BASE, headers=other_admin.headers, json=_body(org))).status_code == 403
    assert (await client.get(f"{BASE}/{sub_id}", headers=other_admin.headers)).status_code == 404
    assert (await client.delete(f"{BASE}/{sub_id}", headers=other_admin.headers)).status_code == 404
    listed = await client.get(BASE, headers=other_admin.headers)
    assert sub_id not in {s["id"] for s in listed.json()["content"]}
    union_admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"{BASE}/{sub_id}", headers=union_admin.headers)).status_code == 200


async def test_secret_shown_at_creation_and_rotation_only_and_changes_audited(client, factory, db):
    org, admin = await _setup(factory)
    created = (await client.post(BASE, headers=admin.headers, json=_body(org))).json()
    assert created["secret"].startswith("whsec_")
    shown = await client.get(f"{BASE}/{created['id']}", headers=admin.headers)
    assert "secret" not in shown.json() and created["secret"] not in shown.text
    rotated = await client.post(f"{BASE}/{created['id']}/secret", headers=admin.headers)
    assert rotated.status_code == 200 and rotated.json()["secret"] != created["secret"]

    updated = await client.put(f"{BASE}/{created['id']}", headers=admin.headers,
                               json={"evenements": ["cotisation.payee", "paiement.valide"], "actif": False})
    assert updated.status_code == 200 and updated.json()["evenements"] == ["cotisation.payee", "paiement.valide"]
    assert updated.json()["actif"] is False
    deleted = await client.delete(f"{BASE}/{created['id']}", headers=admin.headers)
    assert deleted.status_code == 204
    assert (await client.get(f"{BASE}/{created['id']}", headers=admin.headers)).status_code == 404
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == created["id"])
                                     .order_by(AuditLog.id))).scalars())
    assert sorted(actions) == sorted(["CREER", "RENOUVELER_SECRET", "MODIFIER", "SUPPRIMER"])
    assert created["secret"] not in str(list((await db.execute(select(AuditLog.details).where(
        AuditLog.entite_id == created["id"]))).scalars()))
