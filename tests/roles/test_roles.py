from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.roles import ORGANISATION_ROLES, Role
from unionflow.models import AuditLog


async def test_catalogue_lists_every_role_with_operations_from_routes(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await client.get("/api/roles", headers=member.headers)
    assert response.status_code == 200
    roles = {r["code"]: r for r in response.json()}
    assert set(roles) == {r.value for r in Role} and response.headers["X-Total-Count"] == str(len(Role))
    assert all(r["libelle"] != r["code"] for r in roles.values())
    assert roles["TRESORIER"]["portee"] == "ORGANISATION" and roles["SUPER_ADMIN"]["portee"] == "REALM"
    assert roles["USER"]["attribuableEnOrganisation"] is False

    sa_ops = {(o["methode"], o["chemin"]) for o in roles["SUPER_ADMIN"]["operations"]}
    assert ("POST", "/api/admin/associer-organisation") in sa_ops
    assert ("POST", "/api/admin/associer-organisation") not in {
        (o["methode"], o["chemin"]) for o in roles["ADMIN"]["operations"]}
    secretary_ops = {(o["methode"], o["chemin"]): o for o in roles["SECRETAIRE"]["operations"]}
    assert secretary_ops[("POST", "/api/membres")]["roleSet"] == "RS-MEMBRE-WRITE"
    assert ("POST", "/api/membres") not in {(o["methode"], o["chemin"]) for o in roles["TRESORIER"]["operations"]}


async def test_catalogue_follows_routes_added_at_runtime(client, factory, app):
    from unionflow.core.auth import authorize
    from unionflow.core.roles import RS_MON_READ
    from unionflow.core.routing import area_router

    extra = area_router("/api/test-roles-drift", "Rôles")

    @extra.get("/sonde", summary="Sonde de dérive")
    async def probe(auth=authorize(RS_MON_READ)) -> dict[str, str]:
        return {}

    admin = await factory.actor(["ADMIN"], with_membre=False)
    before = len(app.routes)
    app.include_router(extra)
    try:
        response = await client.get("/api/roles/MODERATEUR", headers=admin.headers)
        paths = {o["chemin"] for o in response.json()["operations"]}
        assert "/api/test-roles-drift/sonde" in paths
    finally:
        del app.routes[before:]


async def test_unknown_role_is_404(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get("/api/roles/GOUROU", headers=admin.headers)).status_code == 404
    assert (await client.get("/api/roles/TRESORIER", headers=admin.headers)).json()["code"] == "TRESORIER"


async def test_assign_organisation_roles(client, factory, db):
    org = await factory.organisation()
    other = await factory.organisation()
    membre = await factory.membre(org)
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    url = f"/api/roles/membres/{membre.id}/organisations/{org.id}"

    ok = await client.put(url, headers=org_admin.headers, json=["TRESORIER", "SECRETAIRE"])
    assert ok.status_code == 200, ok.text
    assert ok.json()["roles"] == ["MEMBRE", "SECRETAIRE", "TRESORIER"]
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ATTRIBUER_ROLES",
                                                     AuditLog.organisation_id == org.id))).scalar_one()
    assert entry.severite == "WARNING" and entry.utilisateur == org_admin.user.email

    same = await client.put(url, headers=org_admin.headers, json=["SECRETAIRE", "TRESORIER", "MEMBRE"])
    assert same.status_code == 200
    count = len((await db.execute(select(AuditLog).where(AuditLog.type_action == "ATTRIBUER_ROLES"))).all())
    assert count == 1  # nothing changed, nothing recorded

    for realm_role in ("ADMIN", "SUPER_ADMIN", "USER"):
        assert (await client.put(url, headers=org_admin.headers, json=[realm_role])).status_code == 400
    assert (await client.put(url, headers=org_admin.headers, json=["INCONNU"])).status_code == 400
    assert (await client.put(url, headers=org_admin.headers, json=[])).status_code == 400

    foreign = await factory.membre(other)
    assert (await client.put(f"/api/roles/membres/{foreign.id}/organisations/{other.id}", headers=org_admin.headers,
                             json=["TRESORIER"])).status_code == 404
    not_member = await client.put(f"/api/roles/membres/{membre.id}/organisations/{other.id}",
                                  headers=org_admin.headers, json=["MEMBRE"])
    assert not_member.status_code == 403
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.put(f"/api/roles/membres/{membre.id}/organisations/{other.id}", headers=admin.headers,
                             json=["MEMBRE"])).status_code == 404
    assert (await client.put(f"/api/roles/membres/{uuid.uuid4()}/organisations/{org.id}", headers=admin.headers,
                             json=["MEMBRE"])).status_code == 404


async def test_only_organisation_admins_assign(client, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    url = f"/api/roles/membres/{membre.id}/organisations/{org.id}"
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.put(url, headers=treasurer.headers, json=["TRESORIER"])).status_code == 403
    sa_only = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await client.put(url, headers=sa_only.headers, json=["PRESIDENT"])).status_code == 200


def test_organisation_roles_are_the_assignable_ones():
    assert {r.value for r in ORGANISATION_ROLES} >= {"MEMBRE", "TRESORIER", "ADMIN_ORGANISATION"}


def test_openapi_declares_spec_role_sets(app):
    """Included routers are walked too (core.routing.api_routes): every secured operation lists its roles."""
    paths = app.openapi()["paths"]
    assert paths["/api/admin/associer-organisation"]["post"]["x-role-set"] == "RS-SA"
    for path, method in (("/api/audit", "get"), ("/api/audit", "post"), ("/api/audit/rechercher", "post"),
                         ("/api/audit/statistiques", "get")):
        op = paths[path][method]
        assert op["x-role-set"] == "RS-AUDIT" and op["tags"] == ["Audit"]
        # Issue 19: reading the trail is a declared extension of RS-AUDIT; writing an entry keeps the spec's set.
        extension = [] if method == "post" and path == "/api/audit" else ["COMMISSAIRE_AUX_COMPTES", "TRESORIER"]
        assert op.get("x-role-extension", []) == extension
        assert sorted(op["security"][0]["IdentityProvider"]) == sorted(
            ["ADMIN", "ADMIN_ORGANISATION", "SUPER_ADMIN", *extension])
    assert paths["/api/membres"]["get"]["tags"] == ["Membres"]
    assert paths["/api/roles"]["get"]["tags"] == ["Rôles"]


async def test_catalogue_shows_each_roles_permissions(client, factory):
    member = await factory.actor(["MEMBRE"])
    roles = {r["code"]: r for r in (await client.get("/api/roles", headers=member.headers)).json()}
    tresorier = {p["code"]: p["portee"] for p in roles["TRESORIER"]["permissions"]}
    assert tresorier["paiement.enregistrer"] == "ORGANISATION" and "adhesion.decider" not in tresorier
    assert roles["MEMBRE"]["permissions"] == []
    assert {p["portee"] for p in roles["ADMIN"]["permissions"]} == {"UNION"}
    moderateur = {p["code"]: p["portee"] for p in roles["MODERATEUR"]["permissions"]}
    assert moderateur["feedback.moderer"] == "UNION" and moderateur["ticket.traiter"] == "ORGANISATION"
    one = (await client.get("/api/roles/PRESIDENT", headers=member.headers)).json()
    assert "finance.decider" in [p["code"] for p in one["permissions"]]
