from __future__ import annotations

from sqlalchemy import select

from unionflow.models import AuditLog, MembreOrganisation


async def _statut(client, actor, membre_id, statut, motif=None):
    body = {"statut": statut} | ({"motif": motif} if motif else {})
    return await client.post(f"/api/membres/{membre_id}/statut", headers=actor.headers, json=body)


async def test_lifecycle_and_membership_cascade(client, factory, db):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    target = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre_id = target.membre.id

    assert (await _statut(client, admin, membre_id, "SUSPENDU")).status_code == 400  # reason required
    suspended = await _statut(client, admin, membre_id, "SUSPENDU", "Cotisations impayées depuis 12 mois")
    assert suspended.status_code == 200, suspended.text
    body = suspended.json()
    assert body["statut"] == "SUSPENDU" and body["motifStatut"].startswith("Cotisations") and body["dateStatut"]
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == membre_id))).scalar_one()
    await db.refresh(membership)
    assert membership.statut == "SUSPENDU"
    # A suspended treasurer loses the organisation role but still reaches their own record.
    assert (await client.get("/api/membres", headers=target.headers)).status_code == 403
    assert (await client.get("/api/membres/me", headers=target.headers)).status_code == 200

    assert (await _statut(client, admin, membre_id, "INACTIF")).status_code == 400  # lift suspension first
    assert (await _statut(client, admin, membre_id, "ACTIF")).json()["statut"] == "ACTIF"
    await db.refresh(membership)
    assert membership.statut == "ACTIF"
    assert (await _statut(client, admin, membre_id, "ACTIF")).status_code == 400  # already

    assert (await _statut(client, admin, membre_id, "INACTIF")).json()["statut"] == "INACTIF"
    await db.refresh(membership)
    assert membership.statut == "ACTIF"  # dormant members keep their memberships

    assert (await _statut(client, admin, membre_id, "RADIE")).status_code == 400  # reason required
    assert (await _statut(client, admin, membre_id, "RADIE", "Décès")).json()["statut"] == "RADIE"
    await db.refresh(membership)
    assert membership.statut == "TERMINE" and membership.date_fin is not None
    for final in ("ACTIF", "INACTIF", "SUSPENDU"):
        assert (await _statut(client, admin, membre_id, final, "retour")).status_code == 400
    assert (await client.put(f"/api/membres/{membre_id}", headers=admin.headers,
                             json={"ville": "Dakar"})).status_code == 400

    actions = (await db.execute(select(AuditLog.type_action, AuditLog.severite).where(
        AuditLog.entite_id == str(membre_id)))).all()
    assert ("STATUT_RADIE", "WARNING") in actions and ("STATUT_INACTIF", "INFO") in actions


async def test_organisation_decides_status_only_for_its_exclusive_members(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    exclusive = await factory.membre(org)
    shared = await factory.membre(org)
    from datetime import date

    factory.session.add(MembreOrganisation(membre_id=shared.id, organisation_id=other.id, roles=["MEMBRE"],
                                           date_debut=date.today()))
    await factory.session.flush()
    ok = await _statut(client, secretary, exclusive.id, "INACTIF")
    assert ok.status_code == 200
    refused = await _statut(client, secretary, shared.id, "SUSPENDU", "Absences")
    assert refused.status_code == 403
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    assert (await _statut(client, president, exclusive.id, "ACTIF")).status_code == 403


async def test_input_is_checked_before_existence(client, factory):
    import uuid

    admin = await factory.actor(["ADMIN"], with_membre=False)
    missing = uuid.uuid4()
    assert (await _statut(client, admin, missing, "RADIE")).status_code == 400
    assert (await _statut(client, admin, missing, "RADIE", "Décès")).status_code == 404
    url = f"/api/roles/membres/{missing}/organisations/{uuid.uuid4()}"
    assert (await client.put(url, headers=admin.headers, json=["ADMIN"])).status_code == 400
    assert (await client.put(url, headers=admin.headers, json=["TRESORIER"])).status_code == 404
