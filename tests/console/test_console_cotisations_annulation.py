"""Cancelling dues from a member's page (issue 20): the treasurer ticks one dues or several and gives a reason;
all or nothing, a dues that received money refused with the service's reason. A member and a secretary are not
offered it and are refused when they force it; a post without CSRF token is refused. Rules: cotisations/annulation
(tests/cotisations)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def test_the_treasurer_cancels_a_selection_with_a_reason(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    first, second, kept = [await cotisation(db, membre.membre, org, m) for m in (1000, 2000, 3000)]
    paid = await cotisation(db, membre.membre, org, 500, montant_paye=Decimal(500), statut="PAYEE")
    csrf = await _as(client, tresorier, db)
    page = await client.get(f"/console/membres/{membre.membre.id}")
    assert 'action="/console/cotisations/annuler"' in page.text
    assert f'value="{first.id}"' in page.text and f'value="{paid.id}"' not in page.text  # paid: not offered
    key = KEY.search(page.text).group(1)
    done = await client.post("/console/cotisations/annuler", data={
        "csrf": csrf, "idempotency_key": key, "membre_id": str(membre.membre.id),
        "cotisation": [str(first.id), str(second.id)], "motif": "Membre parti en janvier"})
    assert done.status_code == 303 and done.headers["location"].endswith("?fait=annulees"), done.text
    for row in (first, second, kept):
        await db.refresh(row)
    assert (first.statut, second.statut, kept.statut) == ("ANNULEE", "ANNULEE", "EN_ATTENTE")
    logged = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ANNULER_COTISATION"))).scalars().all()
    assert len(logged) == 2
    shown = await client.get(f"/console/membres/{membre.membre.id}?fait=annulees")
    assert "Cotisations annulées" in shown.text and f'value="{first.id}"' not in shown.text

    forced = await client.post("/console/cotisations/annuler", data={
        "csrf": csrf, "idempotency_key": "forced-paid", "membre_id": str(membre.membre.id),
        "cotisation": [str(kept.id), str(paid.id)], "motif": "Erreur"})
    assert forced.status_code == 409 and "ont reçu de" in forced.text
    await db.refresh(kept)
    assert kept.statut == "EN_ATTENTE"  # all or nothing
    no_reason = await client.post("/console/cotisations/annuler", data={
        "csrf": csrf, "idempotency_key": "k2", "cotisation": [str(kept.id)], "motif": ""})
    assert no_reason.status_code == 400 and "motif" in no_reason.text


async def test_member_and_secretary_are_refused_and_csrf_is_required(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 1000)
    await _as(client, tresorier, db)
    no_csrf = await client.post("/console/cotisations/annuler", data={
        "idempotency_key": "k", "cotisation": [str(due.id)], "motif": "Sans jeton"})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text
    for actor in (secretaire, membre):
        csrf = await _as(client, actor, db)
        if actor is secretaire:
            page = await client.get(f"/console/membres/{membre.membre.id}")
            assert page.status_code == 200 and "/cotisations/annuler" not in page.text
        forced = await client.post("/console/cotisations/annuler", data={
            "csrf": csrf, "idempotency_key": "k", "cotisation": [str(due.id)], "motif": "Je veux"})
        assert forced.status_code == 403
    await db.refresh(due)
    assert due.statut == "EN_ATTENTE"


async def test_a_dues_reserved_by_a_declaration_is_left_and_the_page_says_so(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    reserved, free = [await cotisation(db, membre.membre, org, m) for m in (1000, 2000)]
    declared = await client.put(f"/api/cotisations/{reserved.id}/payer", headers=membre.headers,
                                json={"montant": "1000", "methodePaiement": "ESPECES"})
    assert declared.status_code == 200, declared.text
    csrf = await _as(client, tresorier, db)
    page = await client.get(f"/console/membres/{membre.membre.id}")
    done = await client.post("/console/cotisations/annuler", data={
        "csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "membre_id": str(membre.membre.id),
        "cotisation": [str(reserved.id), str(free.id)], "motif": "Membre parti en janvier"})
    assert done.status_code == 303 and done.headers["location"].endswith("?fait=reservees&refusees=1"), done.text
    for row in (reserved, free):
        await db.refresh(row)
    assert (reserved.statut, free.statut) == ("EN_ATTENTE", "ANNULEE")
    shown = await client.get(done.headers["location"].removeprefix("http://testserver"))
    assert "1 cotisation(s) non annulée(s): un paiement en attente" in shown.text, shown.text
