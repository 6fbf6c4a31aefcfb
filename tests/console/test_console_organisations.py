"""The administrator's set-up screens for organisations and their bureau: the federation and its organisations
created and edited through the API's service, officers added by e-mail (account created) and their roles given and
withdrawn; a refused form comes back with what was typed and the French reason; other roles are refused."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import CSRF, sign_in
from unionflow.models import MembreOrganisation, Organisation, UtilisateurLocal


async def _admin(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    return admin, await sign_in(client, admin, db)


async def _org(db, nom: str) -> Organisation:
    return (await db.execute(select(Organisation).where(Organisation.nom == nom))).scalar_one()


async def test_the_administrator_creates_the_federation_and_a_mutual_then_edits_it(client, factory, db):
    _, csrf = await _admin(client, factory, db)
    form = await client.get("/console/organisations/nouvelle?type=FEDERATION")
    assert form.status_code == 200 and 'value="FEDERATION" selected' in form.text
    created = await client.post("/console/organisations/nouvelle", data={
        "csrf": csrf, "nom": "Fédération des mutuelles de Thiès", "type_organisation": "FEDERATION", "pays": "SN"})
    assert created.status_code == 303, created.text
    federation = await _org(db, "Fédération des mutuelles de Thiès")
    assert created.headers["location"] == f"/console/organisations/{federation.id}?fait=creee"
    mutuelle = await client.post("/console/organisations/nouvelle", data={
        "csrf": csrf, "nom": "Mutuelle des enseignants", "nom_court": "MDE", "type_organisation": "MUTUELLE",
        "parent_id": str(federation.id), "ville": "Thiès", "pays": "SN"})
    assert mutuelle.status_code == 303, mutuelle.text
    child = await _org(db, "Mutuelle des enseignants")
    assert child.parent_id == federation.id and child.nom_court == "MDE"
    listed = await client.get("/console/organisations")
    assert "Mutuelle des enseignants" in listed.text and "Fédération des mutuelles de Thiès</td>" in listed.text

    edited = await client.post(f"/console/organisations/{child.id}", data={
        "csrf": csrf, "nom": "Mutuelle des enseignants de Thiès", "type_organisation": "MUTUELLE",
        "parent_id": str(federation.id), "ville": "", "pays": "SN"})
    assert edited.status_code == 303, edited.text
    await db.refresh(child)
    assert child.nom == "Mutuelle des enseignants de Thiès" and child.ville is None and child.nom_court is None


async def test_a_refused_organisation_form_keeps_what_was_typed(client, factory, db):
    _, csrf = await _admin(client, factory, db)
    federation = await factory.organisation(type_organisation="FEDERATION")
    refused = await client.post("/console/organisations/nouvelle", data={
        "csrf": csrf, "nom": "Mutuelle de Mbour", "type_organisation": "MUTUELLE", "parent_id": str(federation.id),
        "telephone": "77 123", "ville": "Mbour", "pays": "SN"})
    assert refused.status_code == 400, refused.text
    assert 'role="alert"' in refused.text and "telephone" in refused.text
    assert 'value="Mutuelle de Mbour"' in refused.text and 'value="Mbour"' in refused.text
    assert f'value="{federation.id}" selected' in refused.text
    upside_down = await client.post("/console/organisations/nouvelle", data={
        "csrf": csrf, "nom": "Fédération sous une mutuelle", "type_organisation": "FEDERATION",
        "parent_id": str((await factory.organisation(type_organisation="MUTUELLE")).id), "pays": "SN"})
    assert upside_down.status_code == 400 and "ne peut pas dépendre" in upside_down.text
    assert 'value="Fédération sous une mutuelle"' in upside_down.text


async def test_the_organisation_administrator_edits_without_the_hierarchy_and_a_member_is_refused(
        client, factory, db):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    csrf = await sign_in(client, admin, db)
    page = await client.get(f"/console/organisations/{org.id}")
    assert page.status_code == 200 and 'name="nom"' in page.text and 'name="parent_id"' not in page.text
    done = await client.post(f"/console/organisations/{org.id}", data={
        "csrf": csrf, "nom": "Nouveau nom", "pays": "SN"})
    assert done.status_code == 303, done.text
    other = await factory.organisation()
    forced = await client.post(f"/console/organisations/{other.id}", data={"csrf": csrf, "nom": "Pris", "pays": "SN"})
    assert forced.status_code == 403 and "Accès refusé" in forced.text
    assert (await client.get(f"/console/organisations/{other.id}/bureau")).status_code == 403
    client.cookies.clear()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await sign_in(client, member, db)
    assert (await client.get("/console/organisations")).status_code == 403
    assert (await client.get("/console/organisations/nouvelle")).status_code == 403
    assert (await client.get("/console/mise-en-route")).status_code == 403


async def test_the_administrator_adds_an_officer_by_email_then_withdraws_his_role(client, factory, db):
    _, csrf = await _admin(client, factory, db)
    org = await factory.organisation(type_organisation="MUTUELLE")
    added = await client.post(f"/console/organisations/{org.id}/bureau", data={
        "csrf": csrf, "email": "Awa.Ndiaye@example.sn", "prenom": "Awa", "nom": "Ndiaye",
        "mot_de_passe": "Provisoire-2026!", "roles": ["TRESORIER"]})
    assert added.status_code == 303, added.text
    user = (await db.execute(select(UtilisateurLocal).where(UtilisateurLocal.email == "awa.ndiaye@example.sn"))
            ).scalar_one()
    assert user.prenom == "Awa"
    page = await client.get(f"/console/organisations/{org.id}/bureau")
    assert "Awa Ndiaye" in page.text and 'value="TRESORIER" checked' in page.text
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.organisation_id == org.id))).scalar_one()
    assert sorted(membership.roles) == ["MEMBRE", "TRESORIER"]

    again = await client.post(f"/console/organisations/{org.id}/bureau", data={
        "csrf": csrf, "email": "awa.ndiaye@example.sn", "roles": ["TRESORIER", "PRESIDENT"]})
    assert again.status_code == 303, again.text  # the account exists: only the roles change
    withdrawn = await client.post(f"/console/organisations/{org.id}/bureau/{membership.membre_id}",
                                  data={"csrf": csrf, "roles": ["PRESIDENT"]})
    assert withdrawn.status_code == 303, withdrawn.text
    await db.refresh(membership)
    assert sorted(membership.roles) == ["MEMBRE", "PRESIDENT"]


async def test_a_refused_officer_keeps_what_was_typed_but_never_the_password(client, factory, db):
    _, csrf = await _admin(client, factory, db)
    org = await factory.organisation()
    refused = await client.post(f"/console/organisations/{org.id}/bureau", data={
        "csrf": csrf, "email": "moussa.fall@example.sn", "prenom": "Moussa", "nom": "Fall",
        "mot_de_passe": "court", "roles": ["SECRETAIRE"]})
    assert refused.status_code == 400, refused.text
    assert 'role="alert"' in refused.text
    assert 'value="moussa.fall@example.sn"' in refused.text and 'value="Moussa"' in refused.text
    assert 'value="SECRETAIRE" checked' in refused.text and "court" not in refused.text.split("mot_de_passe")[-1]
    assert CSRF.search(refused.text)
