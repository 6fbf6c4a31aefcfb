from __future__ import annotations

import uuid

from sqlalchemy import func, select

from unionflow.models import AuditLog, Membre, MembreOrganisation, UtilisateurLocal

URL = "/api/admin/associer-organisation"


async def _audit_count(db, organisation_id):
    return (await db.execute(select(func.count()).select_from(AuditLog).where(
        AuditLog.type_action == "ASSOCIER_ORGANISATION", AuditLog.organisation_id == organisation_id))).scalar_one()


async def test_associates_local_account_idempotently(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    org = await factory.organisation()
    # A user who can log in but has no member record yet.
    user_actor = await factory.actor(["USER"], with_membre=False, email=f"Khady.Fall.{uuid.uuid4().hex[:6]}@example.sn")
    user_actor.user.prenom, user_actor.user.nom = "Khady", "Fall"
    await db.flush()
    assert (await client.get("/api/organisations/mes-organisations", headers=user_actor.headers)).json() == []

    first = await client.post(URL, headers=sa.headers, json={"email": user_actor.user.email.upper(),
                                                              "organisationId": str(org.id)})
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["membreCree"] and body["appartenanceCreee"] and body["modifie"] and body["compteLie"]
    assert body["roles"] == ["MEMBRE"] and body["statut"] == "ACTIF" and body["numeroMembre"].startswith("MBR-")
    membre = await db.get(Membre, uuid.UUID(body["membreId"]))
    assert (membre.prenom, membre.nom, membre.user_sub) == ("Khady", "Fall", str(user_actor.user.id))

    mine = await client.get("/api/organisations/mes-organisations", headers=user_actor.headers)
    assert [(o["id"], o["roles"]) for o in mine.json()] == [(str(org.id), ["MEMBRE"])]

    again = await client.post(URL, headers=sa.headers, json={"email": user_actor.user.email,
                                                              "organisationId": str(org.id)})
    assert again.status_code == 200
    repeated = again.json()
    assert repeated["modifie"] is False and not repeated["membreCree"] and not repeated["appartenanceCreee"]
    assert {k: v for k, v in repeated.items() if k not in ("modifie", "membreCree", "appartenanceCreee")} == \
        {k: v for k, v in body.items() if k not in ("modifie", "membreCree", "appartenanceCreee")}
    assert await _audit_count(db, org.id) == 1
    rows = (await db.execute(select(func.count()).select_from(MembreOrganisation).where(
        MembreOrganisation.membre_id == membre.id))).scalar_one()
    assert rows == 1


async def test_unknown_user_gets_names_from_email_and_roles_can_change(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    org = await factory.organisation()
    email = f"mamadou.lamine.ba{uuid.uuid4().hex[:4]}@example.sn"
    created = await client.post(URL, headers=sa.headers, json={"email": email, "organisationId": str(org.id),
                                                                "roles": ["PRESIDENT"]})
    body = created.json()
    assert body["roles"] == ["MEMBRE", "PRESIDENT"] and body["compteLie"] is False
    membre = await db.get(Membre, uuid.UUID(body["membreId"]))
    assert membre.prenom == "Mamadou" and membre.nom.startswith("Lamine Ba")

    keep = await client.post(URL, headers=sa.headers, json={"email": email, "organisationId": str(org.id)})
    assert keep.json()["roles"] == ["MEMBRE", "PRESIDENT"] and keep.json()["modifie"] is False
    changed = await client.post(URL, headers=sa.headers, json={"email": email, "organisationId": str(org.id),
                                                                "roles": ["TRESORIER"]})
    assert changed.json()["roles"] == ["MEMBRE", "TRESORIER"] and changed.json()["modifie"] is True
    assert await _audit_count(db, org.id) == 2


async def test_existing_member_is_linked_to_local_account(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    org = await factory.organisation()
    email = f"aicha.{uuid.uuid4().hex[:6]}@example.sn"
    membre = await factory.membre(None, email=email)
    user = UtilisateurLocal(email=email, username=email, realm_roles=["USER"], enabled=True)
    db.add(user)
    await db.flush()
    response = await client.post(URL, headers=sa.headers, json={"email": email, "organisationId": str(org.id)})
    body = response.json()
    assert body["membreId"] == str(membre.id) and not body["membreCree"] and body["compteLie"]
    await db.refresh(membre)
    assert membre.user_sub == str(user.id)


async def test_errors_and_roles(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    payload = {"email": "x@example.sn", "organisationId": str(org.id)}
    assert (await client.post(URL, headers=admin.headers, json=payload)).status_code == 403
    assert (await client.post(URL, json=payload)).status_code == 401
    missing = await client.post(URL, headers=sa.headers, json={**payload, "organisationId": str(uuid.uuid4())})
    assert missing.status_code == 404
    assert (await client.post(URL, headers=sa.headers, json={**payload, "email": "pas-un-email"})).status_code == 400
    assert (await client.post(URL, headers=sa.headers, json={**payload, "roles": ["ADMIN"]})).status_code == 400
    radie = await factory.membre(None, statut="RADIE")
    assert (await client.post(URL, headers=sa.headers, json={**payload, "email": radie.email})).status_code == 400


async def test_bootstrap_and_cli_accounts_on_special_use_domains_can_be_seated(client, factory, db):
    from unionflow.auth.service import create_local_user

    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    org = await factory.organisation()
    # The bootstrap administrator's default address and a CLI-style test address, created the way they are.
    admin = await create_local_user(db, email="admin@unionflow.local", password=None, roles=["SUPER_ADMIN"])
    cli_user = await create_local_user(db, email=f"tresorier.{uuid.uuid4().hex[:6]}@x.test", password=None,
                                       roles=["USER"])
    for user in (admin, cli_user):
        seated = await client.post(URL, headers=sa.headers, json={"email": user.email, "organisationId": str(org.id)})
        assert seated.status_code == 200, seated.text
        assert seated.json()["compteLie"] is True
    reserved = await client.post(URL, headers=sa.headers, json={"email": "x@y.invalid", "organisationId": str(org.id)})
    assert reserved.status_code == 400
    assert reserved.json()["detail"] == "email: adresse e-mail invalide (domaine réservé)"
