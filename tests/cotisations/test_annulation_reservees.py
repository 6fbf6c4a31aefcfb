"""Issue 20, item 1 (leftover): a dues that a pending payment reserves (a member's declaration, an open Wave
session) is never cancelled silently — neither in a selection nor in a generated batch: it is listed in
``refusees`` with the reason, the others are cancelled (docs/decisions.md, "Issue 20 — bench")."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from tests.cotisations.test_adhesion_annulation import YEAR, _body, _dues, _membership
from tests.factories.cotisations import BASE, treasury
from unionflow.models import AuditLog


async def _declare(client, member, dues) -> str:
    declared = await client.put(f"{BASE}/{dues.id}/payer", headers=member.headers,
                                json={"montant": "2500", "methodePaiement": "ESPECES"})
    assert declared.status_code == 200, declared.text
    return str(declared.json()["declaration"]["paiementId"])


async def test_a_batch_leaves_the_reserved_dues_and_says_why(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    for actor in (treasurer, a, b):
        await _membership(db, actor.membre.id, date(YEAR - 1, 1, 1))
    assert (await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 9))).status_code == 200
    september = await _dues(db, org, 9)
    paiement_id = await _declare(client, a, september[a.membre.id])
    lot = {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": YEAR, "mois": 9}

    done = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={"lot": lot, "motif": "Erreur"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["annulees"] == 2 and str(september[a.membre.id].id) not in body["cotisationIds"]
    [refusee] = body["refusees"]
    assert refusee["cotisationId"] == str(september[a.membre.id].id) and refusee["paiementId"] == paiement_id
    assert refusee["numeroReference"] == september[a.membre.id].numero_reference
    assert "déclaration de paiement en attente" in refusee["motif"], refusee
    kept = (await client.get(f"{BASE}/{september[a.membre.id].id}", headers=treasurer.headers)).json()
    assert kept["statut"] == "EN_ATTENTE"
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ANNULER_COTISATION",
                                                     AuditLog.entite_id == str(org.id)))).scalar_one()
    assert entry.details["apres"]["refusees"] == [str(september[a.membre.id].id)]

    # Once the declaration is rejected, the same call cancels what is left.
    rejected = await client.post(f"/api/paiements/{paiement_id}/rejeter", headers=treasurer.headers,
                                 json={"motif": "Pas d'argent reçu à la caisse"})
    assert rejected.status_code == 200, rejected.text
    again = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={"lot": lot, "motif": "Erreur"})
    assert again.json()["annulees"] == 1 and again.json()["dejaAnnulees"] == 2 and again.json()["refusees"] == []


async def test_a_selection_cancels_the_others_and_lists_the_reserved_one(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    for actor in (treasurer, a, b):
        await _membership(db, actor.membre.id, date(YEAR - 1, 1, 1))
    assert (await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 10))).status_code == 200
    october = await _dues(db, org, 10)
    await _declare(client, b, october[b.membre.id])
    ids = [str(october[a.membre.id].id), str(october[b.membre.id].id)]

    done = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={"cotisationIds": ids,
                                                                                   "motif": "Erreur"})
    assert done.status_code == 200, done.text
    assert done.json()["cotisationIds"] == [str(october[a.membre.id].id)] and done.json()["dejaAnnulees"] == 0
    assert [r["cotisationId"] for r in done.json()["refusees"]] == [str(october[b.membre.id].id)]
    audits = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ANNULER_COTISATION"))).scalars().all()
    assert {x.entite_id for x in audits} == {str(october[a.membre.id].id)}
