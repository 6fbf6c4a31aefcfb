from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from sqlalchemy import select

from unionflow.models import Adhesion, AuditLog, MembreOrganisation, Paiement

BASE = "/api/adhesions"


async def _setup(factory):
    org = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    applicant = await factory.actor(["MEMBRE"])  # realm role MEMBRE, no membership yet
    return org, org_admin, applicant


async def _apply(client, actor, org, frais="15000", membre_id=None):
    response = await client.post(BASE, headers=actor.headers, json={
        "membreId": str(membre_id or actor.membre.id), "organisationId": str(org.id), "fraisAdhesion": frais})
    assert response.status_code == 201, response.text
    return response.json()


async def test_full_workflow_with_partial_payments(client, factory, db):
    org, org_admin, applicant = await _setup(factory)
    created = await _apply(client, applicant, org)
    assert created["statut"] == "EN_ATTENTE" and created["devise"] == "XOF"
    assert created["numeroReference"].startswith("ADH-") and Decimal(created["montantRestant"]) == Decimal("15000")
    adh_id = created["id"]

    early = await client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "1000"}, headers=applicant.headers)
    assert early.status_code == 400 and "EN_ATTENTE" in early.json()["detail"]

    approved = await client.post(f"{BASE}/{adh_id}/approuver", headers=org_admin.headers)
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["statut"] == "APPROUVEE" and body["approuvePar"] == org_admin.user.email and body["dateApprobation"]
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == applicant.membre.id))).scalar_one()
    assert membership.statut == "ACTIF" and membership.roles == ["MEMBRE"] and membership.organisation_id == org.id

    again = await client.post(f"{BASE}/{adh_id}/approuver", headers=org_admin.headers)
    assert again.status_code == 400 and "APPROUVEE" in again.json()["detail"]
    reject_now = await client.post(f"{BASE}/{adh_id}/rejeter", params={"motifRejet": "x"}, headers=org_admin.headers)
    assert reject_now.status_code == 400

    too_much = await client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "15000.01"},
                                 headers=applicant.headers)
    assert too_much.status_code == 400
    zero = await client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "0"}, headers=applicant.headers)
    assert zero.status_code == 400
    missing = await client.post(f"{BASE}/{adh_id}/paiement", headers=applicant.headers)
    assert missing.status_code == 400

    part = await client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "5000"}, headers=org_admin.headers)
    assert part.status_code == 200, part.text
    assert part.json()["statut"] == "APPROUVEE" and Decimal(part.json()["montantRestant"]) == Decimal("10000")
    assert part.json()["methodePaiement"] == "ESPECES" and part.json()["recu"]["numeroRecu"].startswith("REC-")
    rest = await client.post(f"{BASE}/{adh_id}/paiement", headers=org_admin.headers, params={
        "montantPaye": "10000", "methodePaiement": "WAVE", "referencePaiement": "T-123"})
    assert rest.status_code == 200, rest.text
    paid = rest.json()
    assert paid["statut"] == "PAYEE" and Decimal(paid["montantPaye"]) == Decimal("15000")
    assert paid["methodePaiement"] == "WAVE" and paid["referencePaiement"] == "T-123"
    more = await client.post(f"{BASE}/{adh_id}/paiement", params={"montantPaye": "1"}, headers=applicant.headers)
    assert more.status_code == 400

    paiements = (await db.execute(select(Paiement).where(Paiement.membre_id == applicant.membre.id))).scalars().all()
    assert sorted(p.montant for p in paiements) == [Decimal("5000"), Decimal("10000")]

    admin = await factory.actor(["ADMIN"], with_membre=False)
    refused = await client.delete(f"{BASE}/{adh_id}", headers=admin.headers)
    assert refused.status_code == 409
    actions = {e.type_action for e in (await db.execute(
        select(AuditLog).where(AuditLog.entite_id == adh_id))).scalars()}
    assert {"CREER", "APPROUVER", "PAYER"} <= actions


async def test_reject_requires_reason_and_records_it(client, factory):
    org, org_admin, applicant = await _setup(factory)
    adh = await _apply(client, applicant, org)
    missing = await client.post(f"{BASE}/{adh['id']}/rejeter", headers=org_admin.headers)
    assert missing.status_code == 400
    blank = await client.post(f"{BASE}/{adh['id']}/rejeter", params={"motifRejet": "   "}, headers=org_admin.headers)
    assert blank.status_code == 400
    rejected = await client.post(f"{BASE}/{adh['id']}/rejeter", params={"motifRejet": "Dossier incomplet"},
                                 headers=org_admin.headers)
    assert rejected.status_code == 200
    assert rejected.json()["statut"] == "REJETEE" and rejected.json()["motifRejet"] == "Dossier incomplet"
    approve = await client.post(f"{BASE}/{adh['id']}/approuver", headers=org_admin.headers)
    assert approve.status_code == 400 and "REJETEE" in approve.json()["detail"]
    pay = await client.post(f"{BASE}/{adh['id']}/paiement", params={"montantPaye": "1"}, headers=applicant.headers)
    assert pay.status_code == 400


async def test_approve_by_param_and_existing_membership_reused(client, factory, db):
    org, org_admin, _ = await _setup(factory)
    # A former member (inactive membership with another role) re-applies.
    old = await factory.actor(["MEMBRE"], organisation=org, org_roles=["SECRETAIRE"])
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == old.membre.id))).scalar_one()
    membership.statut = "INACTIF"
    await db.flush()
    adh = await _apply(client, old, org, frais="0")
    ok = await client.post(f"{BASE}/{adh['id']}/approuver", params={"approuvePar": "Mme Ndiaye, présidente"},
                           headers=org_admin.headers)
    assert ok.status_code == 200 and ok.json()["approuvePar"] == "Mme Ndiaye, présidente"
    await db.refresh(membership)
    rows = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == old.membre.id))).scalars().all()
    assert len(rows) == 1 and membership.statut == "ACTIF" and set(membership.roles) == {"SECRETAIRE", "MEMBRE"}


async def test_delete_cancels_and_keeps_record(client, factory, db):
    org, _, applicant = await _setup(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    adh = await _apply(client, applicant, org)
    member_try = await client.delete(f"{BASE}/{adh['id']}", headers=applicant.headers)
    assert member_try.status_code == 403
    gone = await client.delete(f"{BASE}/{adh['id']}", headers=admin.headers)
    assert gone.status_code == 204 and gone.content == b""
    row = await client.get(f"{BASE}/{adh['id']}", headers=admin.headers)
    assert row.json()["statut"] == "ANNULEE" and row.json()["dateAnnulation"]
    assert (await client.delete(f"{BASE}/{adh['id']}", headers=admin.headers)).status_code == 204
    approve = await client.post(f"{BASE}/{adh['id']}/approuver", headers=admin.headers)
    assert approve.status_code == 400 and "ANNULEE" in approve.json()["detail"]
    assert (await client.delete(f"{BASE}/{uuid.uuid4()}", headers=admin.headers)).status_code == 404


async def test_delete_refused_after_partial_payment(client, factory):
    org, org_admin, applicant = await _setup(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    adh = await _apply(client, applicant, org)
    await client.post(f"{BASE}/{adh['id']}/approuver", headers=org_admin.headers)
    await client.post(f"{BASE}/{adh['id']}/paiement", params={"montantPaye": "100"}, headers=org_admin.headers)
    assert (await client.delete(f"{BASE}/{adh['id']}", headers=admin.headers)).status_code == 409


async def test_create_validation_and_not_found(client, factory):
    org, org_admin, applicant = await _setup(factory)
    missing_org = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(uuid.uuid4())})
    assert missing_org.status_code == 404
    missing_member = await client.post(BASE, headers=org_admin.headers, json={
        "membreId": str(uuid.uuid4()), "organisationId": str(org.id)})
    assert missing_member.status_code == 404
    negative = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "-1"})
    assert negative.status_code == 400
    server_field = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "statut": "PAYEE"})
    assert server_field.status_code == 400
    await _apply(client, applicant, org)
    duplicate = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id)})
    assert duplicate.status_code == 409
    already = await client.post(BASE, headers=org_admin.headers, json={
        "membreId": str(org_admin.membre.id), "organisationId": str(org.id)})
    assert already.status_code == 409


async def test_org_admin_enrols_member_and_member_cannot_enrol_others(client, factory, db):
    org, org_admin, _applicant = await _setup(factory)
    # A former member stays in the organisation's register: its administrator may enrol him again.
    former = await factory.actor(["MEMBRE"], organisation=org)
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == former.membre.id))).scalar_one()
    membership.statut = "TERMINE"
    await db.flush()
    enrolled = await client.post(BASE, headers=org_admin.headers, json={
        "membreId": str(former.membre.id), "organisationId": str(org.id), "observations": "Inscrit en AG"})
    assert enrolled.status_code == 201, enrolled.text
    third = await factory.actor(["USER"])
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    hidden = await client.post(BASE, headers=member.headers, json={
        "membreId": str(third.membre.id), "organisationId": str(org.id)})
    assert hidden.status_code == 404


async def test_update_only_while_pending(client, factory):
    org, org_admin, applicant = await _setup(factory)
    adh = await _apply(client, applicant, org)
    url = f"{BASE}/{adh['id']}"
    own = await client.put(url, headers=applicant.headers, json={"observations": "Parrain: M. Sow"})
    assert own.status_code == 200 and own.json()["observations"] == "Parrain: M. Sow"
    fee_by_member = await client.put(url, headers=applicant.headers, json={"fraisAdhesion": "1"})
    assert fee_by_member.status_code == 403
    fee = await client.put(url, headers=org_admin.headers, json={"fraisAdhesion": "20000"})
    assert fee.status_code == 200 and Decimal(fee.json()["fraisAdhesion"]) == Decimal("20000")
    bad = await client.put(url, headers=org_admin.headers, json={"montantPaye": "20000"})
    assert bad.status_code == 400
    await client.post(f"{url}/approuver", headers=org_admin.headers)
    late = await client.put(url, headers=org_admin.headers, json={"observations": "trop tard"})
    assert late.status_code == 400 and "APPROUVEE" in late.json()["detail"]
    assert (await client.put(f"{BASE}/{uuid.uuid4()}", headers=org_admin.headers, json={})).status_code == 404


async def test_lists_filters_and_visibility(client, factory):
    org, org_admin, a = await _setup(factory)
    other_org = await factory.organisation()
    b = await factory.actor(["MEMBRE"])
    adh_a = await _apply(client, a, org)
    adh_b = await _apply(client, b, other_org)
    admin = await factory.actor(["ADMIN"], with_membre=False)

    mine = (await client.get(BASE, headers=a.headers)).json()
    assert [x["id"] for x in mine["content"]] == [adh_a["id"]] and mine["totalElements"] == 1
    staff = (await client.get(BASE, headers=org_admin.headers)).json()
    assert adh_a["id"] in [x["id"] for x in staff["content"]] and adh_b["id"] not in [x["id"] for x in staff["content"]]
    everyone = (await client.get(BASE, params={"size": 200}, headers=admin.headers)).json()
    assert {adh_a["id"], adh_b["id"]} <= {x["id"] for x in everyone["content"]}

    # BOLA: A cannot read, pay or list B's adhesion.
    assert (await client.get(f"{BASE}/{adh_b['id']}", headers=a.headers)).status_code == 404
    assert (await client.get(f"{BASE}/reference/{adh_b['numeroReference']}", headers=a.headers)).status_code == 404
    assert (await client.post(f"{BASE}/{adh_b['id']}/paiement", params={"montantPaye": "1"},
                              headers=a.headers)).status_code == 404
    assert (await client.get(f"{BASE}/membre/{b.membre.id}", headers=a.headers)).status_code == 404
    assert (await client.get(f"{BASE}/{adh_b['id']}", headers=org_admin.headers)).status_code == 404
    assert (await client.post(f"{BASE}/{adh_b['id']}/approuver", headers=org_admin.headers)).status_code == 404

    by_ref = await client.get(f"{BASE}/reference/{adh_a['numeroReference']}", headers=a.headers)
    assert by_ref.status_code == 200 and by_ref.json()["id"] == adh_a["id"]
    of_member = (await client.get(f"{BASE}/membre/{a.membre.id}", headers=org_admin.headers)).json()
    assert [x["id"] for x in of_member["content"]] == [adh_a["id"]]
    assert (await client.get(f"{BASE}/membre/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    of_org = (await client.get(f"{BASE}/organisation/{org.id}", headers=org_admin.headers)).json()
    assert [x["id"] for x in of_org["content"]] == [adh_a["id"]]
    assert (await client.get(f"{BASE}/organisation/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    pending = (await client.get(f"{BASE}/en-attente", headers=org_admin.headers)).json()
    assert [x["id"] for x in pending["content"]] == [adh_a["id"]]
    by_status = (await client.get(f"{BASE}/statut/EN_ATTENTE", headers=org_admin.headers)).json()
    assert [x["id"] for x in by_status["content"]] == [adh_a["id"]]
    assert (await client.get(f"{BASE}/statut/APPROUVEE", headers=org_admin.headers)).json()["content"] == []
    assert (await client.get(f"{BASE}/statut/INCONNU", headers=org_admin.headers)).status_code == 400


async def test_approval_reserved_to_managers(client, factory):
    org, _org_admin, applicant = await _setup(factory)
    adh = await _apply(client, applicant, org)
    assert (await client.post(f"{BASE}/{adh['id']}/approuver", headers=applicant.headers)).status_code == 403
    # An organisation administrator elsewhere who applies here cannot approve their own application.
    boss_elsewhere = await factory.actor(["USER"], organisation=await factory.organisation(),
                                         org_roles=["ADMIN_ORGANISATION"])
    own = await _apply(client, boss_elsewhere, org)
    assert (await client.post(f"{BASE}/{own['id']}/approuver", headers=boss_elsewhere.headers)).status_code == 403
    assert (await client.post(f"{BASE}/{own['id']}/rejeter", params={"motifRejet": "x"},
                              headers=boss_elsewhere.headers)).status_code == 403


@pytest.mark.parametrize("path", ["", "/en-attente", "/statut/EN_ATTENTE"])
async def test_paging_and_roles(client, factory, path):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"{BASE}{path}", params={"size": 0}, headers=admin.headers)).status_code == 400
    assert (await client.get(f"{BASE}{path}", params={"page": -1}, headers=admin.headers)).status_code == 400
    assert (await client.get(f"{BASE}{path}")).status_code == 401
    treasurer_only = await factory.actor(["TRESORIER"], with_membre=False)
    assert (await client.get(f"{BASE}{path}", headers=treasurer_only.headers)).status_code == 403


async def test_role_sets_of_write_routes(client, factory):
    org, org_admin, applicant = await _setup(factory)
    adh = await _apply(client, applicant, org)
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    user = await factory.actor(["USER"], with_membre=False)
    super_admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await client.post(BASE, headers=user.headers, json={})).status_code == 403
    assert (await client.put(f"{BASE}/{adh['id']}", headers=moderator.headers, json={})).status_code == 403
    assert (await client.delete(f"{BASE}/{adh['id']}", headers=org_admin.headers)).status_code == 403
    assert (await client.post(f"{BASE}/{adh['id']}/paiement", params={"montantPaye": "1"},
                              headers=super_admin.headers)).status_code == 403
    assert (await client.post(f"{BASE}/{adh['id']}/rejeter", params={"motifRejet": "x"},
                              headers=user.headers)).status_code == 403
    ok = await client.post(f"{BASE}/{adh['id']}/approuver", headers=super_admin.headers)
    assert ok.status_code == 200


async def test_stats_exact_figures(client, factory):
    org = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    applicants = [await factory.actor(["MEMBRE"]) for _ in range(4)]
    ids = [(await _apply(client, a, org, frais=f))["id"] for a, f in zip(applicants, ["10000", "2500.50", "7000", "1"])]
    await client.post(f"{BASE}/{ids[0]}/approuver", headers=org_admin.headers)
    await client.post(f"{BASE}/{ids[0]}/paiement", params={"montantPaye": "10000"}, headers=org_admin.headers)
    await client.post(f"{BASE}/{ids[1]}/approuver", headers=org_admin.headers)
    await client.post(f"{BASE}/{ids[1]}/paiement", params={"montantPaye": "500.25"}, headers=org_admin.headers)
    await client.post(f"{BASE}/{ids[2]}/rejeter", params={"motifRejet": "hors zone"}, headers=org_admin.headers)
    stats = (await client.get(f"{BASE}/stats", headers=org_admin.headers)).json()
    assert stats["total"] == 4 and stats["enAttente"] == 1 and stats["approuvees"] == 1 and stats["payees"] == 1
    assert stats["rejetees"] == 1 and stats["annulees"] == 0
    assert Decimal(stats["montantFraisDu"]) == Decimal("12500.50")
    assert Decimal(stats["montantCollecte"]) == Decimal("10500.25")
    assert Decimal(stats["montantRestant"]) == Decimal("2000.25")
    assert Decimal(stats["tauxApprobation"]) == Decimal("66.67")
    outsider = await factory.actor(["USER"])
    assert (await client.get(f"{BASE}/stats", headers=outsider.headers)).json()["total"] == 0


async def test_staff_cannot_enrol_a_member_they_cannot_see(client, factory, db):
    """Consent across organisations (issue 8, item 4): staff of A enrol only members visible to them."""
    org, org_admin, _ = await _setup(factory)
    other_org = await factory.organisation()
    of_b_only = await factory.actor(["MEMBRE"], organisation=other_org)
    unaffiliated = await factory.actor(["MEMBRE"])
    for target in (of_b_only, unaffiliated):
        refused = await client.post(BASE, headers=org_admin.headers, json={
            "membreId": str(target.membre.id), "organisationId": str(org.id)})
        assert refused.status_code == 404, refused.text
    assert (await db.execute(select(Adhesion).where(Adhesion.organisation_id == org.id))).first() is None
    # The member himself applies, and then the organisation decides.
    own = await _apply(client, of_b_only, org)
    approved = await client.post(f"{BASE}/{own['id']}/approuver", headers=org_admin.headers)
    assert approved.status_code == 200


async def test_cancelling_an_approved_unpaid_adhesion_ends_the_membership(client, factory, db):
    """Issue 8, item 5: the approval made him a member; cancelling before payment undoes it."""
    org, org_admin, applicant = await _setup(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    adh = await _apply(client, applicant, org)
    assert (await client.post(f"{BASE}/{adh['id']}/approuver", headers=org_admin.headers)).status_code == 200
    assert (await client.delete(f"{BASE}/{adh['id']}", headers=admin.headers)).status_code == 204
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == applicant.membre.id)
        .execution_options(populate_existing=True))).scalar_one()
    assert membership.statut == "TERMINE" and membership.date_fin is not None
    again = await _apply(client, applicant, org)
    assert again["statut"] == "EN_ATTENTE"


async def test_suspended_organisation_neither_approves_nor_collects(client, factory, db):
    """Issue 8, item 5: as creation already is, approval and payment are refused while suspended (400)."""
    org, org_admin, applicant = await _setup(factory)
    pending = await _apply(client, applicant, org)
    other = await factory.actor(["MEMBRE"])
    approved = await _apply(client, other, org)
    assert (await client.post(f"{BASE}/{approved['id']}/approuver", headers=org_admin.headers)).status_code == 200
    org.statut = "SUSPENDUE"
    await db.flush()
    refused = await client.post(f"{BASE}/{pending['id']}/approuver", headers=org_admin.headers)
    assert refused.status_code == 400 and "SUSPENDUE" in refused.json()["detail"]
    unpaid = await client.post(f"{BASE}/{approved['id']}/paiement", params={"montantPaye": "15000"},
                               headers=org_admin.headers)
    assert unpaid.status_code == 400 and "SUSPENDUE" in unpaid.json()["detail"]
    assert (await db.execute(select(Paiement).where(Paiement.membre_id == other.membre.id))).first() is None
