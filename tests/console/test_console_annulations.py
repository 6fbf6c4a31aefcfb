"""Undoing money with four eyes in the console (issue 19): a treasurer asks, on the payment's page, to refund or
cancel it with a reason; nothing moves; /console/annulations lists the request with who asked, what and why; the
requester and whoever recorded the money are refused with the service's reason; a second person approves and the
refund receipt is linked from the payment. A member is refused the screen and every forced post. Rules:
annulations service (tests/paiements/annulations); here, that the console offers, refuses and shows them."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from unionflow.models import DemandeApprobation, Paiement
from unionflow.models.annulation import VueAnnulation

ANNULATIONS = select(DemandeApprobation).where(DemandeApprobation.genre == "ANNULATION")


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def _setup(client, factory, db):
    org = await factory.organisation()
    awa = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ibou = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, membre.membre, org, 2500)
    paid = await client.post("/api/paiements", headers=awa.headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "2500", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return org, awa, ibou, president, membre, await db.get(Paiement, uuid.UUID(paid.json()["id"]))


async def _ask(client, csrf, paiement, verbe="rembourser", motif="Double encaissement") -> None:
    page = await client.get(f"/console/paiements/{paiement.id}")
    assert f'action="/console/paiements/{paiement.id}/rembourser"' in page.text
    done = await client.post(f"/console/paiements/{paiement.id}/{verbe}", data={
        "csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "motif": motif})
    assert done.status_code == 303, done.text


async def test_a_refund_asked_by_one_treasurer_is_approved_by_the_president_never_by_the_asker(client, factory, db):
    _, awa, ibou, president, _, paiement = await _setup(client, factory, db)
    csrf = await _as(client, ibou, db)
    await _ask(client, csrf, paiement)
    demande = (await db.execute(ANNULATIONS)).scalar_one()
    await db.refresh(paiement)
    assert paiement.statut == "VALIDE" and demande.statut == "EN_ATTENTE"  # nothing moved
    page = await client.get(f"/console/paiements/{paiement.id}")
    assert "Demande en attente" in page.text and "Double encaissement" in page.text
    assert f"/paiements/{paiement.id}/rembourser" not in page.text  # not asked twice
    listed = await client.get("/console/annulations")
    assert listed.status_code == 200 and paiement.numero_recu in listed.text and "Double encaissement" in listed.text
    assert "Retirer ma demande" in listed.text and f"/annulations/{demande.id}/approuver" not in listed.text
    forced = await client.post(f"/console/annulations/{demande.id}/approuver", data={
        "csrf": csrf, "idempotency_key": "forced-a1"})
    assert forced.status_code == 403 and "quatre yeux" in forced.text

    csrf = await _as(client, awa, db)  # recorded the money: refused with the service's reason
    refused = await client.post(f"/console/annulations/{demande.id}/approuver", data={
        "csrf": csrf, "idempotency_key": "forced-a2"})
    assert refused.status_code == 403 and "enregistré ou confirmé" in refused.text
    await db.refresh(demande)
    assert demande.statut == "EN_ATTENTE"

    csrf = await _as(client, president, db)
    listed = await client.get("/console/annulations")
    assert f"/annulations/{demande.id}/approuver" in listed.text and "Retirer ma demande" not in listed.text
    approved = await client.post(f"/console/annulations/{demande.id}/approuver", data={
        "csrf": csrf, "idempotency_key": f"{KEY.search(listed.text).group(1)}-{demande.id}",
        "commentaire": "Vu le bordereau"})
    assert approved.status_code == 303, approved.text
    await db.refresh(paiement)
    await db.refresh(demande)
    assert (paiement.statut == "REMBOURSE" and demande.statut == "APPROUVEE"
            and VueAnnulation(demande).numero_remboursement)
    page = await client.get(f"/console/paiements/{paiement.id}")
    assert f"/paiements/{paiement.id}/recu-remboursement" in page.text
    pdf = await client.get(f"/console/paiements/{paiement.id}/recu-remboursement")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    history = await client.get("/console/annulations?fait=approuver")
    assert "Demande approuvée" in history.text and VueAnnulation(demande).numero_remboursement in history.text


async def test_the_requester_withdraws_and_a_rejection_needs_a_reason(client, factory, db):
    _, _, ibou, president, _, paiement = await _setup(client, factory, db)
    csrf = await _as(client, ibou, db)
    await _ask(client, csrf, paiement, "annuler", "Erreur de saisie")
    demande = (await db.execute(ANNULATIONS)).scalar_one()
    assert VueAnnulation(demande).type_annulation == "ANNULATION_PAIEMENT"
    csrf_president = await _as(client, president, db)
    bare = await client.post(f"/console/annulations/{demande.id}/rejeter", data={"csrf": csrf_president})
    assert bare.status_code == 400 and "raison du rejet" in bare.text
    not_his = await client.post(f"/console/annulations/{demande.id}/retirer", data={"csrf": csrf_president})
    assert not_his.status_code == 403  # the president's role set does not withdraw
    csrf = await _as(client, ibou, db)
    assert (await client.post(f"/console/annulations/{demande.id}/retirer", data={"csrf": csrf})).status_code == 303
    await db.refresh(demande)
    await db.refresh(paiement)
    assert demande.statut == "RETIREE" and paiement.statut == "VALIDE"


async def test_a_member_is_refused_the_screen_and_every_forced_post(client, factory, db):
    _, _, ibou, _, membre, paiement = await _setup(client, factory, db)
    csrf = await _as(client, ibou, db)
    await _ask(client, csrf, paiement)
    demande = (await db.execute(ANNULATIONS)).scalar_one()
    assert (await client.post(f"/console/annulations/{demande.id}/approuver", data={})).status_code == 403  # no CSRF
    csrf = await _as(client, membre, db)
    own = await client.get(f"/console/paiements/{paiement.id}")
    assert own.status_code == 200 and "/rembourser" not in own.text and "Demande en attente" not in own.text
    assert "/annulations" not in own.text
    assert (await client.get("/console/annulations")).status_code == 403
    for path in (f"/console/annulations/{demande.id}/approuver", f"/console/annulations/{demande.id}/retirer",
                 f"/console/paiements/{paiement.id}/annuler"):
        forced = await client.post(path, data={"csrf": csrf, "motif": "Je veux", "idempotency_key": "k"})
        assert forced.status_code == 403, path
    await db.refresh(demande)
    await db.refresh(paiement)
    assert demande.statut == "EN_ATTENTE" and paiement.statut == "VALIDE"
    assert (await db.execute(ANNULATIONS)).scalars().all() == [demande]


async def test_the_requests_page_stays_under_30_kb(client, factory, db):
    org, awa, ibou, president, membre, _ = await _setup(client, factory, db)
    for i in range(20):  # more than the page shows (15 pending cards, 20 decided rows)
        dues = await cotisation(db, membre.membre, org, 1000 + i)
        paid = (await client.post("/api/paiements", headers=awa.headers, json={
            "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": str(1000 + i),
            "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})).json()
        asked = await client.post(f"/api/paiements/{paid['id']}/rembourser", json={
            "motif": f"Versé deux fois au guichet de Thiès ({i})"},
            headers={**ibou.headers, "Idempotency-Key": str(uuid.uuid4())})
        assert asked.status_code == 202, asked.text
        if i % 4 == 0:
            assert (await client.post(f"/api/annulations/{asked.json()['id']}/rejeter", headers=president.headers,
                                      json={"commentaire": "Pas de double versement au cahier"})).status_code == 200
    await _as(client, president, db)
    sizes = {}
    for path in ("/console/annulations", f"/console/paiements/{paid['id']}"):
        page = await client.get(path)
        sizes[path] = len(page.content) + sum(len(k) + len(v) + 4 for k, v in page.headers.items())
        assert page.status_code == 200 and sizes[path] < 30 * 1024, (path, sizes[path])
    print(f"poids annulations: {sizes}")  # the figures of docs/console.md (pytest -s)
