from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories.audit import entry, unique_module


async def test_create_sets_server_fields(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/audit", headers={**admin.headers, "User-Agent": "UnionFlowMobile/2.1"}, json={
        "typeAction": "export", "module": "cotisations", "description": "Export CSV des cotisations 2026",
        "entiteType": "Cotisation", "entiteId": "COT-2026-ABCD", "severite": "WARNING",
        "details": {"lignes": 120, "format": "csv"}})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["utilisateur"] == admin.user.email and body["utilisateurId"] == str(admin.user.id)
    assert body["typeAction"] == "EXPORT" and body["module"] == "COTISATIONS" and body["severite"] == "WARNING"
    assert body["userAgent"] == "UnionFlowMobile/2.1" and body["ipAddress"] and body["dateHeure"]
    assert body["details"] == {"lignes": 120, "format": "csv"}
    forged = await client.post("/api/audit", headers=admin.headers, json={
        "typeAction": "X", "module": "Y", "utilisateur": "quelquun@example.sn"})
    assert forged.status_code == 400
    assert (await client.post("/api/audit", headers=admin.headers,
                              json={"typeAction": "X", "module": "Y", "severite": "FATAL"})).status_code == 400
    huge = {"typeAction": "X", "module": "Y", "details": {"t": "x" * 20_000}}
    assert (await client.post("/api/audit", headers=admin.headers, json=huge)).status_code == 400


async def test_list_sorting_and_paging(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    now = datetime.now(UTC) + timedelta(days=1)  # newer than anything else in the table
    module = unique_module()
    old = await entry(db, when=now - timedelta(hours=2), module=module, severite="WARNING")
    new = await entry(db, when=now - timedelta(hours=1), module=module, severite="CRITICAL")
    default = (await client.get("/api/audit", headers=admin.headers)).json()
    assert default["size"] == 50 and default["content"][0]["id"] == str(new.id)
    assert default["content"][1]["id"] == str(old.id)
    sized = (await client.get("/api/audit", headers=admin.headers, params={"size": 1, "page": 1})).json()
    assert sized["content"][0]["id"] == str(old.id)
    asc = (await client.get("/api/audit", headers=admin.headers,
                            params={"sortBy": "dateHeure", "sortOrder": "asc", "size": 200})).json()
    dates = [c["dateHeure"] for c in asc["content"]]
    assert dates == sorted(dates)
    by_sev = (await client.get("/api/audit", headers=admin.headers,
                               params={"sortBy": "severite", "sortOrder": "asc", "size": 200})).json()
    severities = [c["severite"] for c in by_sev["content"]]
    assert severities == sorted(severities)
    for bad in ({"sortBy": "description"}, {"sortBy": "details"}, {"sortOrder": "sideways"}, {"size": 0}):
        assert (await client.get("/api/audit", headers=admin.headers, params=bad)).status_code == 400


async def test_search_filters(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    module = unique_module()
    day = datetime(2025, 3, 10, 9, 30, tzinfo=UTC)
    a = await entry(db, when=day, module=module, type_action="SUPPRIMER", severite="WARNING", ip="196.1.1.1",
                    utilisateur="tresorier@example.sn")
    b = await entry(db, when=day + timedelta(days=1), module=module, type_action="CREER")
    c = await entry(db, when=day + timedelta(days=5), module=module, type_action="CREER")

    async def ids(**query):
        response = await client.post("/api/audit/rechercher", headers=admin.headers,
                                     params={"module": module.lower(), **query})
        assert response.status_code == 200, response.text
        return {row["id"] for row in response.json()["content"]}

    assert await ids() == {str(a.id), str(b.id), str(c.id)}
    assert await ids(dateDebut="2025-03-10", dateFin="2025-03-11") == {str(a.id), str(b.id)}  # dateFin inclusive
    assert await ids(dateDebut="2025-03-10T10:00:00Z") == {str(b.id), str(c.id)}
    assert await ids(dateFin="2025-03-10T09:30:00") == {str(a.id)}  # naive = UTC, bound inclusive
    assert await ids(typeAction="creer") == {str(b.id), str(c.id)}
    assert await ids(severite="WARNING") == {str(a.id)}
    assert await ids(ipAddress="196.1.1.1") == {str(a.id)}
    assert await ids(utilisateur="tresorier@example.sn") == {str(a.id)}
    for bad in ({"dateDebut": "10/03/2025"}, {"dateDebut": "2025-03-12", "dateFin": "2025-03-10"},
                {"severite": "GRAVE"}, {"size": 201}):
        response = await client.post("/api/audit/rechercher", headers=admin.headers, params=bad)
        assert response.status_code == 400, bad


async def test_organisation_admin_sees_only_own_organisations(client, factory, db):
    org = await factory.organisation()
    other = await factory.organisation()
    module = unique_module()
    mine = await entry(db, module=module, organisation_id=org.id)
    await entry(db, module=module, organisation_id=other.id)
    await entry(db, module=module, organisation_id=None)
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    found = await client.post("/api/audit/rechercher", headers=org_admin.headers, params={"module": module})
    assert [r["id"] for r in found.json()["content"]] == [str(mine.id)]
    listing = await client.get("/api/audit", headers=org_admin.headers, params={"size": 200})
    assert {r["organisationId"] for r in listing.json()["content"]} == {str(org.id)}
    stats = (await client.get("/api/audit/statistiques", headers=org_admin.headers)).json()
    assert stats["parModule"].get(module) == 1 and stats["perimetre"] == "ORGANISATIONS"

    created = await client.post("/api/audit", headers=org_admin.headers, json={"typeAction": "EXPORT", "module": "X"})
    assert created.json()["organisationId"] == str(org.id)

    # Issue 19: the treasurer reads the trail of his organisation's money only; the secretary none of it.
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    money = await entry(db, module="PAIEMENTS", organisation_id=org.id)
    seen = await client.get("/api/audit", headers=treasurer.headers, params={"size": 200})
    assert seen.status_code == 200
    assert str(money.id) in {r["id"] for r in seen.json()["content"]}
    assert {r["module"] for r in seen.json()["content"]} <= {"PAIEMENTS", "COTISATIONS", "VERSEMENTS", "WAVE",
                                                             "COMPTABILITE", "FINANCE", "DEMANDES_AIDE"}
    assert (await client.post("/api/audit", headers=treasurer.headers, json={"typeAction": "EXPORT", "module": "X"})
            ).status_code == 403
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    assert (await client.get("/api/audit", headers=secretary.headers)).status_code == 403
    assert (await client.get("/api/audit")).status_code == 401


async def test_statistics(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    module = unique_module()
    now = datetime.now(UTC)
    await entry(db, when=now - timedelta(hours=1), module=module, severite="CRITICAL", type_action="LOGIN_ECHEC")
    await entry(db, when=now - timedelta(days=3), module=module, severite="INFO", type_action="LOGIN_ECHEC")
    await entry(db, when=now - timedelta(days=30), module=module, severite="INFO", type_action="CREER")
    before = (await client.get("/api/audit/statistiques", headers=admin.headers)).json()
    assert before["parModule"][module] == 3 and before["perimetre"] == "UNION"
    await entry(db, when=now - timedelta(minutes=5), module=module, severite="CRITICAL")
    stats = (await client.get("/api/audit/statistiques", headers=admin.headers)).json()
    assert stats["total"] == before["total"] + 1
    assert stats["dernieres24h"] == before["dernieres24h"] + 1
    assert stats["derniers7Jours"] == before["derniers7Jours"] + 1
    assert stats["parSeverite"]["CRITICAL"] == before["parSeverite"]["CRITICAL"] + 1
    assert stats["parModule"][module] == 4
    assert stats["total"] == sum(stats["parModule"].values()) == sum(stats["parSeverite"].values())
    assert stats["dernieres24h"] <= stats["derniers7Jours"] <= stats["total"]
    assert stats["premiereEntree"] <= stats["derniereEntree"]


async def test_org_admin_of_several_organisations_must_name_one_to_record(client, factory, db):
    from datetime import date

    from unionflow.models import MembreOrganisation

    first = await factory.organisation()
    second = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=first, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    db.add(MembreOrganisation(membre_id=org_admin.membre.id, organisation_id=second.id,
                              roles=["MEMBRE", "ADMIN_ORGANISATION"], date_debut=date.today()))
    await db.flush()
    body = {"typeAction": "EXPORTER", "module": "MEMBRES"}
    # Without an active organisation only the personal role applies: he is told to name one (issue 8).
    ambiguous = await client.post("/api/audit", headers=org_admin.headers, json=body)
    assert ambiguous.status_code == 400 and "X-Active-Organisation-Id" in ambiguous.json()["detail"]
    named = await client.post("/api/audit", headers=org_admin.in_org(second.id), json=body)
    assert named.status_code == 200 and named.json()["organisationId"] == str(second.id)
    seen_first = await client.get("/api/audit", headers=org_admin.in_org(first.id), params={"size": 200})
    assert str(named.json()["id"]) not in {r["id"] for r in seen_first.json()["content"]}


async def test_member_changes_reach_the_organisation_admins_journal(client, factory):
    org = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    membre = await factory.membre(org)
    await client.put(f"/api/membres/{membre.id}", headers=secretary.headers, json={"profession": "Pêcheur"})
    found = await client.post("/api/audit/rechercher", headers=org_admin.headers,
                              params={"module": "MEMBRES", "typeAction": "MODIFIER"})
    assert [r["entiteId"] for r in found.json()["content"]] == [str(membre.id)]
    assert found.json()["content"][0]["utilisateur"] == secretary.user.email


async def test_realm_org_admin_with_several_organisations_gets_400_without_active_one(client, factory, db):
    from datetime import date

    from unionflow.models import MembreOrganisation

    first = await factory.organisation()
    second = await factory.organisation()
    realm_admin = await factory.actor(["ADMIN_ORGANISATION"], organisation=first)
    db.add(MembreOrganisation(membre_id=realm_admin.membre.id, organisation_id=second.id, roles=["MEMBRE"],
                              date_debut=date.today()))
    await db.flush()
    body = {"typeAction": "EXPORTER", "module": "MEMBRES"}
    assert (await client.post("/api/audit", headers=realm_admin.headers, json=body)).status_code == 400
    assert (await client.post("/api/audit", headers=realm_admin.in_org(first.id), json=body)).status_code == 200


async def test_union_admin_changes_are_filed_under_the_members_organisation(client, factory):
    org = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    admin = await factory.actor(["ADMIN"], with_membre=False)
    membre = await factory.membre(org)
    response = await client.post(f"/api/membres/{membre.id}/statut", headers=admin.headers,
                                 json={"statut": "SUSPENDU", "motif": "Fraude aux cotisations"})
    assert response.status_code == 200
    found = await client.post("/api/audit/rechercher", headers=org_admin.headers,
                              params={"typeAction": "STATUT_SUSPENDU", "severite": "WARNING"})
    assert [r["entiteId"] for r in found.json()["content"]] == [str(membre.id)]
