"""A lock that holds (issue 19, item 2): the lock date is never in the future; moving it forward is one person;
moving it back is a request with a reason, decided by a second person under another role, traced DEVERROUILLER
with the dates before and after."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from unionflow.models import AuditLog, MembreOrganisation

TODAY = datetime.now(UTC).date()
BASE = "/api/comptabilite/verrouillage"
DEMANDES = f"{BASE}/deverrouillages"


async def _bureau(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    return org, tresorier, president


async def _lock(client, headers, org, day: date):
    return await client.put(BASE, headers=headers, json={"organisationId": str(org.id),
                                                         "dateVerrouillage": day.isoformat()})


async def _date(client, headers, org) -> str | None:
    return (await client.get(BASE, headers=headers, params={"organisationId": str(org.id)})).json()["dateVerrouillage"]


async def _audit(db, org, action):
    stmt = select(AuditLog).where(AuditLog.organisation_id == org.id, AuditLog.type_action == action)
    return list((await db.execute(stmt.execution_options(populate_existing=True))).scalars())


async def test_the_lock_date_cannot_be_in_the_future(client, factory, db):
    org, tresorier, _ = await _bureau(factory)
    future = await _lock(client, tresorier.headers, org, TODAY + timedelta(days=4))
    assert future.status_code == 400 and "futur" in future.json()["detail"], future.text
    assert await _date(client, tresorier.headers, org) is None
    today = await _lock(client, tresorier.headers, org, TODAY)
    assert today.status_code == 200 and today.json()["dateVerrouillage"] == TODAY.isoformat()


async def test_forward_is_one_person_and_described(client, factory, db):
    org, tresorier, _ = await _bureau(factory)
    first, second = TODAY - timedelta(days=60), TODAY - timedelta(days=30)
    assert (await _lock(client, tresorier.headers, org, first)).status_code == 200
    assert (await _lock(client, tresorier.headers, org, second)).status_code == 200
    entries = await _audit(db, org, "VERROUILLER")
    assert len(entries) == 2
    described = {e.description for e in entries}
    assert f"Verrouillage des comptes jusqu'au {second:%d/%m/%Y} (précédemment: {first:%d/%m/%Y})" in described


async def test_moving_back_alone_is_refused_and_changes_nothing(client, factory, db):
    org, tresorier, _ = await _bureau(factory)
    locked = TODAY - timedelta(days=1)
    assert (await _lock(client, tresorier.headers, org, locked)).status_code == 200
    back = await _lock(client, tresorier.headers, org, TODAY - timedelta(days=26))
    assert back.status_code == 400 and "deverrouillages" in back.json()["detail"], back.text
    assert await _date(client, tresorier.headers, org) == locked.isoformat()
    assert await _audit(db, org, "DEVERROUILLER") == []


async def test_reopening_asked_by_the_treasurer_approved_by_the_president(client, factory, db):
    org, tresorier, president = await _bureau(factory)
    locked, reopened = TODAY - timedelta(days=1), TODAY - timedelta(days=26)
    assert (await _lock(client, tresorier.headers, org, locked)).status_code == 200
    asked = await client.post(DEMANDES, headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": reopened.isoformat(),
        "motif": "Facture d'électricité d'octobre reçue en retard"})
    assert asked.status_code == 201, asked.text
    demande = asked.json()
    assert demande["statut"] == "EN_ATTENTE" and demande["roleDemandeur"] == "TRESORIER"
    assert demande["dateActuelle"] == locked.isoformat()
    # Nothing moves until a second person decides.
    assert await _date(client, tresorier.headers, org) == locked.isoformat()
    same = await client.post(f"{DEMANDES}/{demande['id']}/approuver", headers=tresorier.headers, json={})
    assert same.status_code == 403
    again = await client.post(DEMANDES, headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": reopened.isoformat(), "motif": "Deuxième demande"})
    assert again.status_code == 409

    approved = await client.post(f"{DEMANDES}/{demande['id']}/approuver", headers=president.headers,
                                 json={"commentaire": "Pièce justificative vue"})
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["statut"] == "APPROUVEE" and body["roleDecideur"] == "PRESIDENT"
    assert body["decidePar"] == president.user.email
    assert await _date(client, tresorier.headers, org) == reopened.isoformat()
    [trace] = await _audit(db, org, "DEVERROUILLER")
    assert trace.details["avant"] == {"dateVerrouillage": locked.isoformat()}
    assert trace.details["apres"]["dateVerrouillage"] == reopened.isoformat()
    assert trace.details["apres"]["demandeId"] == demande["id"]
    assert f"du {locked:%d/%m/%Y} ramené au {reopened:%d/%m/%Y}" in (trace.description or "")
    assert tresorier.user.email in trace.description and president.user.email in trace.description
    assert trace.utilisateur == president.user.email
    assert len(await _audit(db, org, "DEMANDER_DEVERROUILLAGE")) == 1
    twice = await client.post(f"{DEMANDES}/{demande['id']}/approuver", headers=president.headers, json={})
    assert twice.status_code == 400


async def test_the_requester_cannot_approve_even_holding_the_deciding_role(client, factory, db):
    """A treasurer who is also president asks: he may not decide himself (French 403 reason)."""
    org = await factory.organisation()
    cumulard = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER", "PRESIDENT"])
    assert (await _lock(client, cumulard.headers, org, TODAY - timedelta(days=1))).status_code == 200
    asked = await client.post(DEMANDES, headers=cumulard.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=9)).isoformat(),
        "motif": "Correction d'une imputation"})
    assert asked.status_code == 201, asked.text
    refused = await client.post(f"{DEMANDES}/{asked.json()['id']}/approuver", headers=cumulard.headers, json={})
    assert refused.status_code == 403
    assert "quatre yeux" in refused.json()["detail"]
    assert await _date(client, cumulard.headers, org) == (TODAY - timedelta(days=1)).isoformat()


async def test_the_decision_is_taken_under_another_role(client, factory, db):
    """Asked as ADMIN_ORGANISATION, it is not decided by another ADMIN_ORGANISATION; a president may."""
    org = await factory.organisation()
    admin1 = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    admin2 = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    assert (await _lock(client, admin1.headers, org, TODAY - timedelta(days=1))).status_code == 200
    asked = await client.post(DEMANDES, headers=admin1.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=5)).isoformat(),
        "motif": "Écriture de banque oubliée"})
    assert asked.status_code == 201 and asked.json()["roleDemandeur"] == "ADMIN_ORGANISATION"
    same_role = await client.post(f"{DEMANDES}/{asked.json()['id']}/approuver", headers=admin2.headers, json={})
    assert same_role.status_code == 403 and "autre rôle" in same_role.json()["detail"]
    ok = await client.post(f"{DEMANDES}/{asked.json()['id']}/approuver", headers=president.headers, json={})
    assert ok.status_code == 200, ok.text


async def test_combined_roles_on_reopening(client, factory, db):
    """President of B and treasurer of A: acting for B he cannot decide A's request (404), acting for A as
    treasurer he is refused by the role set (403); the commissaire aux comptes of A reads but cannot ask."""
    org, tresorier, president = await _bureau(factory)
    other = await factory.organisation()
    mixte = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "PRESIDENT"])
    db.add(MembreOrganisation(membre_id=mixte.membre.id, organisation_id=org.id, roles=["MEMBRE", "TRESORIER"],
                              date_debut=date.today()))
    cac = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    await db.flush()
    assert (await _lock(client, tresorier.headers, org, TODAY - timedelta(days=1))).status_code == 200
    asked = await client.post(DEMANDES, headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=5)).isoformat(),
        "motif": "Relevé bancaire corrigé"})
    url = f"{DEMANDES}/{asked.json()['id']}/approuver"
    assert (await client.post(url, headers=mixte.in_org(other.id), json={})).status_code == 404
    assert (await client.post(url, headers=mixte.in_org(org.id), json={})).status_code == 403
    read = await client.get(DEMANDES, headers=cac.headers, params={"organisationId": str(org.id)})
    assert read.status_code == 200 and [d["id"] for d in read.json()] == [asked.json()["id"]]
    cac_asks = await client.post(DEMANDES, headers=cac.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=7)).isoformat(),
        "motif": "Tentative du commissaire"})
    assert cac_asks.status_code == 403
    assert (await client.post(url, headers=cac.headers, json={})).status_code == 403
    assert (await client.post(url, headers=president.headers, json={})).status_code == 200


async def test_rejection_and_withdrawal_leave_the_lock(client, factory, db):
    org, tresorier, president = await _bureau(factory)
    locked = TODAY - timedelta(days=1)
    assert (await _lock(client, tresorier.headers, org, locked)).status_code == 200
    body = {"organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=5)).isoformat(),
            "motif": "Correction demandée"}
    first = (await client.post(DEMANDES, headers=tresorier.headers, json=body)).json()
    no_comment = await client.post(f"{DEMANDES}/{first['id']}/rejeter", headers=president.headers, json={})
    assert no_comment.status_code == 400
    rejected = await client.post(f"{DEMANDES}/{first['id']}/rejeter", headers=president.headers,
                                 json={"commentaire": "Pas de pièce justificative"})
    assert rejected.status_code == 200 and rejected.json()["statut"] == "REJETEE"
    second = (await client.post(DEMANDES, headers=tresorier.headers, json=body)).json()
    by_other = await client.post(f"{DEMANDES}/{second['id']}/annuler", headers=president.headers)
    assert by_other.status_code == 403
    withdrawn = await client.post(f"{DEMANDES}/{second['id']}/annuler", headers=tresorier.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["statut"] == "ANNULEE"
    assert await _date(client, tresorier.headers, org) == locked.isoformat()
    assert await _audit(db, org, "DEVERROUILLER") == []


async def test_a_reopening_must_go_back_and_not_before_a_closed_year(client, factory, db):
    org, tresorier, _ = await _bureau(factory)
    none = await client.post(DEMANDES, headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=5)).isoformat(),
        "motif": "Rien à rouvrir"})
    assert none.status_code == 400  # nothing locked: nothing to reopen
    assert (await _lock(client, tresorier.headers, org, TODAY - timedelta(days=10))).status_code == 200
    forward = await client.post(DEMANDES, headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": (TODAY - timedelta(days=2)).isoformat(),
        "motif": "Ce n'est pas une réouverture"})
    assert forward.status_code == 400
