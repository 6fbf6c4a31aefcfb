from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests.factories.cotisations import BASE, cotisation_a_venir, days, treasury
from unionflow.models import AuditLog, Paiement


def _create_body(membre, org, **extra):
    body = {"membreId": str(membre.id), "organisationId": str(org.id), "typeCotisation": "MENSUELLE",
            "libelle": "Mars 2026", "annee": 2026, "mois": 3, "montantDu": "5000", "dateEcheance": str(days(10))}
    body.update(extra)
    return body


async def test_create_and_read(client, factory, db):
    org, treasurer, a, _ = await treasury(factory)
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    created = await client.post(BASE, headers=org_admin.headers, json=_create_body(a.membre, org))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["statut"] == "EN_ATTENTE" and body["devise"] == "XOF"
    assert body["numeroReference"].startswith("COT-2026-")
    assert Decimal(body["montantDu"]) == Decimal("5000") and Decimal(body["montantRestant"]) == Decimal("5000")
    got = await client.get(f"{BASE}/{body['id']}", headers=a.headers)
    assert got.status_code == 200 and got.json()["id"] == body["id"]
    by_ref = await client.get(f"{BASE}/reference/{body['numeroReference']}", headers=treasurer.headers)
    assert by_ref.status_code == 200 and by_ref.json()["id"] == body["id"]
    assert (await client.get(f"{BASE}/reference/COT-NOPE", headers=treasurer.headers)).status_code == 404
    assert (await client.get(f"{BASE}/{uuid.uuid4()}", headers=treasurer.headers)).status_code == 404
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == body["id"]))).scalar_one()
    assert entry.type_action == "CREER" and entry.module == "COTISATIONS"


async def test_create_validation_and_scope(client, factory):
    org, _, a, b = await treasury(factory)
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    outsider = await factory.actor(["MEMBRE"])
    assert (await client.post(BASE, headers=org_admin.headers, json=_create_body(
        a.membre, org, montantDu="0"))).status_code == 400
    assert (await client.post(BASE, headers=org_admin.headers, json=_create_body(
        a.membre, org, mois=13))).status_code == 400
    assert (await client.post(BASE, headers=org_admin.headers, json=_create_body(
        a.membre, org, statut="PAYEE"))).status_code == 400
    missing_org = _create_body(a.membre, org, organisationId=str(uuid.uuid4()))
    assert (await client.post(BASE, headers=org_admin.headers, json=missing_org)).status_code == 404
    missing_member = _create_body(a.membre, org, membreId=str(uuid.uuid4()))
    assert (await client.post(BASE, headers=org_admin.headers, json=missing_member)).status_code == 404
    not_member = await client.post(BASE, headers=org_admin.headers, json=_create_body(outsider.membre, org))
    assert not_member.status_code == 400 and "actif" in not_member.json()["detail"]
    # A member records a voluntary contribution of their own, never one for another member.
    own = await client.post(BASE, headers=a.headers, json=_create_body(a.membre, org, typeCotisation="SOLIDARITE"))
    assert own.status_code == 201
    assert (await client.post(BASE, headers=a.headers, json=_create_body(b.membre, org))).status_code == 404
    assert (await client.post(BASE, headers=outsider.headers, json=_create_body(a.membre, org))).status_code == 404


async def test_payment_workflow(client, factory, db):
    org, treasurer, a, _ = await treasury(factory)
    due = await cotisation_a_venir(factory, a.membre, org, montant="10000")
    url = f"{BASE}/{due.id}/payer"
    for bad in ({}, {"montant": "0"}, {"montant": "-5"}, {"montant": "abc"}, {"montant": "10", "x": 1},
                {"montant": "10", "methodePaiement": "BITCOIN"},
                {"montant": "10", "datePaiement": "2999-01-01T00:00:00+00:00"},
                {"montant": "10", "datePaiement": "2026-01-01T00:00:00"}):
        response = await client.put(url, headers=a.headers, json=bad)
        assert response.status_code == 400, (bad, response.text)
    over = await client.put(url, headers=a.headers, json={"montant": "10000.01"})
    assert over.status_code == 400
    part = await client.put(url, headers=treasurer.headers, json={"montant": "4000", "methodePaiement": "WAVE",
                                                          "referencePaiement": "WV-1"})
    assert part.status_code == 200, part.text
    assert part.json()["statut"] == "PARTIELLEMENT_PAYEE" and Decimal(part.json()["montantRestant"]) == Decimal("6000")
    assert part.json()["recu"]["numeroRecu"].startswith("REC-") and part.json()["methodePaiement"] == "WAVE"
    rest = await client.put(url, headers=treasurer.headers, json={
        "montant": "6000", "datePaiement": "2026-03-05T10:00:00+00:00"})
    assert rest.status_code == 200 and rest.json()["statut"] == "PAYEE"
    assert rest.json()["datePaiement"].startswith("2026-03-05T10:00:00")
    again = await client.put(url, headers=a.headers, json={"montant": "1"})
    assert again.status_code == 400
    paid = (await db.execute(select(Paiement).where(Paiement.membre_id == a.membre.id))).scalars().all()
    assert sorted(p.montant for p in paid) == [Decimal("4000"), Decimal("6000")]


async def test_member_pays_only_own_dues(client, factory):
    org, _, a, b = await treasury(factory)
    due_b = await cotisation_a_venir(factory, b.membre, org)
    other_treasurer = await factory.actor(["USER"], organisation=await factory.organisation(),
                                          org_roles=["TRESORIER"])
    assert (await client.put(f"{BASE}/{due_b.id}/payer", headers=a.headers, json={"montant": "1"})).status_code == 404
    assert (await client.put(f"{BASE}/{due_b.id}/payer", headers=other_treasurer.headers,
                             json={"montant": "1"})).status_code == 404
    user_only = await factory.actor(["USER"], with_membre=False)
    assert (await client.put(f"{BASE}/{due_b.id}/payer", headers=user_only.headers,
                             json={"montant": "1"})).status_code == 403
    assert (await client.get(f"{BASE}/{due_b.id}", headers=a.headers)).status_code == 404
    assert (await client.get(f"{BASE}/reference/{due_b.numero_reference}", headers=a.headers)).status_code == 404
    assert (await client.get(f"{BASE}/membre/{b.membre.id}", headers=a.headers)).status_code == 404
    listing = (await client.get(BASE, headers=a.headers)).json()
    assert listing["content"] == [] and listing["totalElements"] == 0
    searched = (await client.get(f"{BASE}/recherche", params={"membreId": str(b.membre.id)}, headers=a.headers)).json()
    assert searched["content"] == []


async def test_update_rules(client, factory):
    org, treasurer, a, _ = await treasury(factory)
    due = await cotisation_a_venir(factory, a.membre, org, montant="8000", echeance=days(-3), statut="EN_RETARD")
    url = f"{BASE}/{due.id}"
    assert (await client.put(url, headers=a.headers, json={"libelle": "x"})).status_code == 403
    moved = await client.put(url, headers=treasurer.headers,
                             json={"dateEcheance": str(days(15)), "libelle": "Reportée"})
    assert moved.status_code == 200, moved.text
    assert moved.json()["statut"] == "EN_ATTENTE" and moved.json()["statutEnregistre"] == "EN_ATTENTE"
    await client.put(f"{url}/payer", headers=treasurer.headers, json={"montant": "3000"})
    too_low = await client.put(url, headers=treasurer.headers, json={"montantDu": "3000"})
    assert too_low.status_code == 400
    raised = await client.put(url, headers=treasurer.headers, json={"montantDu": "9000"})
    assert raised.status_code == 200 and raised.json()["statut"] == "PARTIELLEMENT_PAYEE"
    assert (await client.put(url, headers=treasurer.headers, json={"montantDu": None})).status_code == 400
    await client.put(f"{url}/payer", headers=treasurer.headers, json={"montant": "6000"})
    paid = await client.put(url, headers=treasurer.headers, json={"libelle": "trop tard"})
    assert paid.status_code == 400 and "PAYEE" in paid.json()["detail"]
    assert (await client.put(f"{BASE}/{uuid.uuid4()}", headers=treasurer.headers, json={})).status_code == 404


async def test_cancel(client, factory, db):
    org, treasurer, a, _ = await treasury(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    due = await cotisation_a_venir(factory, a.membre, org)
    assert (await client.delete(f"{BASE}/{due.id}", headers=treasurer.headers)).status_code == 403
    cancelled = await client.delete(f"{BASE}/{due.id}", headers=admin.headers)
    assert cancelled.status_code == 200 and cancelled.json()["statut"] == "ANNULEE"
    assert (await client.delete(f"{BASE}/{due.id}", headers=admin.headers)).json()["statut"] == "ANNULEE"
    pay = await client.put(f"{BASE}/{due.id}/payer", headers=a.headers, json={"montant": "1"})
    assert pay.status_code == 400 and "annulée" in pay.json()["detail"]
    partly = await cotisation_a_venir(factory, a.membre, org)
    await client.put(f"{BASE}/{partly.id}/payer", headers=treasurer.headers, json={"montant": "100"})
    assert (await client.delete(f"{BASE}/{partly.id}", headers=admin.headers)).status_code == 409
    assert (await client.delete(f"{BASE}/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    actions = {e.type_action for e in (await db.execute(
        select(AuditLog).where(AuditLog.entite_id == str(due.id)))).scalars()}
    assert "ANNULER" in actions


async def test_overdue_is_derived_in_lists_and_filters(client, factory):
    org, treasurer, a, _ = await treasury(factory)
    late = await cotisation_a_venir(factory, a.membre, org, echeance=days(-1))
    late_partial = await cotisation_a_venir(factory, a.membre, org, echeance=days(-10), montant_paye=Decimal("100"),
                                    statut="PARTIELLEMENT_PAYEE")
    upcoming = await cotisation_a_venir(factory, a.membre, org, echeance=days(0))
    paid_late = await cotisation_a_venir(factory, a.membre, org, echeance=days(-5), montant_paye=Decimal("5000"),
                                 statut="PAYEE")
    got = (await client.get(f"{BASE}/{late.id}", headers=a.headers)).json()
    assert got["statut"] == "EN_RETARD" and got["statutEnregistre"] == "EN_ATTENTE" and got["joursRetard"] == 1
    overdue = (await client.get(f"{BASE}/en-retard", headers=treasurer.headers)).json()
    assert [c["id"] for c in overdue["content"]] == [str(late_partial.id), str(late.id)]
    by_status = (await client.get(f"{BASE}/statut/EN_RETARD", headers=treasurer.headers)).json()
    assert {c["id"] for c in by_status["content"]} == {str(late.id), str(late_partial.id)}
    pending = (await client.get(f"{BASE}/statut/EN_ATTENTE", headers=treasurer.headers)).json()
    assert [c["id"] for c in pending["content"]] == [str(upcoming.id)]
    paid = (await client.get(f"{BASE}/recherche", params={"statut": "PAYEE"}, headers=a.headers)).json()
    assert [c["id"] for c in paid["content"]] == [str(paid_late.id)] and paid["content"][0]["statut"] == "PAYEE"
    assert (await client.get(f"{BASE}/statut/PERDUE", headers=a.headers)).status_code == 400
    assert (await client.get(f"{BASE}/recherche", params={"statut": "X"}, headers=a.headers)).status_code == 400


async def test_search_filters(client, factory):
    org, treasurer, a, b = await treasury(factory)
    march = await cotisation_a_venir(factory, a.membre, org, annee=2026, mois=3)
    await cotisation_a_venir(factory, a.membre, org, annee=2026, mois=4)
    yearly = await cotisation_a_venir(factory, b.membre, org, annee=2025, mois=None, type_cotisation="ANNUELLE")
    async def ids(**params):
        response = await client.get(f"{BASE}/recherche", params=params, headers=treasurer.headers)
        assert response.status_code == 200, response.text
        return {c["id"] for c in response.json()["content"]}
    assert await ids(annee=2026, mois=3) == {str(march.id)}
    assert await ids(typeCotisation="ANNUELLE") == {str(yearly.id)}
    assert await ids(membreId=str(b.membre.id)) == {str(yearly.id)}
    assert len(await ids(annee=2026, membreId=str(a.membre.id))) == 2
    assert (await client.get(f"{BASE}/recherche", params={"mois": 0}, headers=a.headers)).status_code == 400


async def test_member_views(client, factory):
    org, treasurer, a, b = await treasury(factory)
    d1 = await cotisation_a_venir(factory, a.membre, org, montant="3000", echeance=days(20))
    d2 = await cotisation_a_venir(factory, a.membre, org, montant="2000", echeance=days(-2))
    await cotisation_a_venir(factory, a.membre, org, montant="1000", montant_paye=Decimal("1000"), statut="PAYEE")
    await cotisation_a_venir(factory, b.membre, org, montant="7000")
    mine = (await client.get(f"{BASE}/mes-cotisations", headers=a.headers)).json()
    assert mine["size"] == 50 and mine["totalElements"] == 3
    unpaid = await client.get(f"{BASE}/mes-cotisations/en-attente", headers=a.headers)
    assert unpaid.headers["X-Total-Count"] == "2"
    assert [c["id"] for c in unpaid.json()] == [str(d2.id), str(d1.id)]
    synth = (await client.get(f"{BASE}/mes-cotisations/synthese", headers=a.headers)).json()
    assert synth["nombreCotisations"] == 3 and synth["nombreAPayer"] == 2 and synth["nombreEnRetard"] == 1
    assert synth["nombrePayees"] == 1
    assert Decimal(synth["montantDu"]) == Decimal("6000") and Decimal(synth["montantPaye"]) == Decimal("1000")
    assert Decimal(synth["montantRestant"]) == Decimal("5000") and Decimal(synth["montantEnRetard"]) == Decimal("2000")
    # The next unpaid due date from today (issue 20): the one 2 days ago is an arrear, not what comes next.
    assert synth["prochaineEcheance"] == str(days(20))
    # Staff see only their own dues on the personal endpoints.
    mine_staff = (await client.get(f"{BASE}/mes-cotisations", headers=treasurer.headers)).json()
    assert mine_staff["totalElements"] == 0
    of_member = (await client.get(f"{BASE}/membre/{a.membre.id}", headers=treasurer.headers)).json()
    assert of_member["totalElements"] == 3
    public = (await client.get(f"{BASE}/public", headers=a.headers)).json()
    assert public["totalElements"] == 3
    assert "montantDu" not in public["content"][0] and "membreId" not in public["content"][0]
    usr = await factory.actor(["USER"], with_membre=False)
    assert (await client.get(f"{BASE}/mes-cotisations", headers=usr.headers)).status_code == 403


@pytest.mark.parametrize("path,default", [("", 20), ("/public", 20), ("/en-retard", 20), ("/recherche", 20),
                                          ("/statut/PAYEE", 20), ("/mes-cotisations", 50)])
async def test_paging(client, factory, path, default):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    ok = await client.get(f"{BASE}{path}", headers=admin.headers)
    assert ok.status_code == 200 and ok.json()["size"] == default
    assert (await client.get(f"{BASE}{path}", params={"size": 0}, headers=admin.headers)).status_code == 400
    assert (await client.get(f"{BASE}{path}", params={"page": -1}, headers=admin.headers)).status_code == 400
    assert (await client.get(f"{BASE}{path}")).status_code == 401


@pytest.mark.parametrize("method,path", [
    ("GET", ""), ("POST", ""), ("GET", "/en-retard"), ("GET", "/statistiques"), ("GET", "/stats"),
    ("GET", "/statistiques/periode?annee=2026"), ("POST", "/rappels/groupes"), ("POST", "/generer"),
    ("GET", "/mes-cotisations/synthese"), ("DELETE", "/00000000-0000-0000-0000-000000000001")])
async def test_roles_outside_set_get_403(client, factory, method, path):
    outsider = await factory.actor(["MODERATEUR"], with_membre=False)
    response = await client.request(method, f"{BASE}{path}", headers=outsider.headers,
                                    json=[] if method != "GET" else None)
    assert response.status_code == 403
    anonymous = await client.request(method, f"{BASE}{path}", json=[] if method != "GET" else None)
    assert anonymous.status_code == 401
