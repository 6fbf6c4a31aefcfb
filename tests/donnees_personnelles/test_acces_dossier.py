"""The access log of members' files: every read by someone other than the member (API and console) is one row,
read by the member himself and by his organisations' data-protection officer; no one else (404)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select

from tests.console.connexion import sign_in
from unionflow.models import AccesDossier, MembreOrganisation

MOI = "/api/moi/acces"


def _journal(membre_id):
    return f"/api/donnees-personnelles/membres/{membre_id}/acces"


async def _rows(db, membre_id) -> list[AccesDossier]:
    return list((await db.execute(select(AccesDossier).where(AccesDossier.membre_id == membre_id)
                                  .order_by(AccesDossier.lu_le, AccesDossier.ecran))).scalars())


async def test_staff_reads_are_logged_the_members_own_are_not(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    mid = membre.membre.id
    for url in (f"/api/membres/{mid}", f"/api/membres/numero/{membre.membre.numero_membre}",
                f"/api/membres/{mid}/organisations", f"/api/adhesions/membre/{mid}",
                f"/api/cotisations/membre/{mid}"):
        assert (await client.get(url, headers=membre.headers)).status_code == 200, url  # his own: not logged
        assert (await client.get(url, headers=secretaire.headers)).status_code == 200, url
    rows = await _rows(db, mid)
    assert sorted(r.ecran for r in rows) == ["GET /api/adhesions/membre/{membreId}",
                                             "GET /api/cotisations/membre/{membreId}", "GET /api/membres/numero/"
                                             "{numeroMembre}", "GET /api/membres/{id}",
                                             "GET /api/membres/{id}/organisations"]
    assert {(r.lecteur_nom, r.organisation_id, r.lecteur_roles) for r in rows} == {
        (secretaire.user.email, org.id, "MEMBRE,SECRETAIRE,USER")}

    mine = await client.get(MOI, headers=membre.headers)
    assert mine.status_code == 200 and mine.json()["totalElements"] == 5
    first = mine.json()["content"][0]
    assert first["lecteurNom"] == secretaire.user.email and first["lecteurRoles"] == ["MEMBRE", "SECRETAIRE", "USER"]
    assert first["membreNom"] == f"{membre.membre.prenom} {membre.membre.nom}"
    # The secretary's own log is empty: reading others' files writes in theirs, not his.
    assert (await client.get(MOI, headers=secretaire.headers)).json()["totalElements"] == 0
    assert (await client.get(_journal(mid), headers=membre.headers)).json()["totalElements"] == 5


async def test_member_in_a_and_secretary_in_b(client, factory, db):
    """One person, member of A and secretary of B: what he reads as B's secretary is logged in the file of B's
    member; as a member he reads only his own log (another member's: 404)."""
    a, b = await factory.organisation(), await factory.organisation()
    person = await factory.actor(["USER"], organisation=a, org_roles=["MEMBRE"])
    db.add(MembreOrganisation(membre_id=person.membre.id, organisation_id=b.id, roles=["MEMBRE", "SECRETAIRE"],
                              date_debut=date.today()))
    await db.flush()
    x = await factory.actor(["USER"], organisation=b, org_roles=["MEMBRE"])
    dpo_b = await factory.actor(["USER"], organisation=b, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    dpo_a = await factory.actor(["USER"], organisation=a, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])

    as_member = await client.get(f"/api/membres/{x.membre.id}", headers=person.in_org(a.id))
    assert as_member.status_code == 404  # acting for A he does not see B's member, and nothing is logged
    assert await _rows(db, x.membre.id) == []
    assert (await client.get(f"/api/membres/{x.membre.id}", headers=person.in_org(b.id))).status_code == 200
    [row] = await _rows(db, x.membre.id)
    assert row.organisation_id == b.id and row.lecteur.endswith(f" {person.user.id}")  # issuer + subject

    for headers in (person.in_org(a.id), person.in_org(b.id), dpo_a.headers):
        refused = await client.get(_journal(x.membre.id), headers=headers)
        assert refused.status_code == 404, refused.text
    seen = await client.get(_journal(x.membre.id), headers=x.headers)
    assert [r["lecteurNom"] for r in seen.json()["content"]] == [person.user.email]
    by_dpo = await client.get(_journal(x.membre.id), headers=dpo_b.headers)
    assert by_dpo.status_code == 200 and by_dpo.json()["totalElements"] == 1
    org_log = await client.get("/api/donnees-personnelles/acces", headers=dpo_b.headers,
                               params={"organisationId": str(b.id)})
    assert [r["membreId"] for r in org_log.json()["content"]] == [str(x.membre.id)]
    assert (await client.get("/api/donnees-personnelles/acces", headers=dpo_a.headers)).json()["content"] == []
    outside = await client.get("/api/donnees-personnelles/acces", headers=dpo_a.headers,
                               params={"organisationId": str(b.id)})
    assert outside.status_code == 404
    # The officer is not staff: B's register stays closed to him, and the log is not the secretary's.
    assert (await client.get(f"/api/membres/{x.membre.id}", headers=dpo_b.headers)).status_code == 404
    assert (await client.get("/api/donnees-personnelles/acces", headers=person.in_org(b.id))).status_code == 403


async def test_console_member_page_is_logged(client, factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    await sign_in(client, secretaire, db)
    page = await client.get(f"/console/membres/{membre.id}")
    assert page.status_code == 200
    count = select(func.count()).select_from(AccesDossier).where(AccesDossier.membre_id == membre.id)
    assert (await db.execute(count)).scalar_one() == 1
    assert [r.ecran for r in await _rows(db, membre.id)] == ["console /membres/{id}"]
