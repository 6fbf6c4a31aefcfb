from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal, passer
from unionflow.models import AuditLog


async def _books(client, factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    banque = await compte(client, h, org.id, "521", "Banque")
    cotis = await compte(client, h, org.id, "7061", "Cotisations")
    bq = await journal(client, h, org.id)
    return org, tresorier, banque, cotis, bq


async def test_chart_of_accounts_derives_class_and_refuses_duplicates(client, factory, db):
    org, tresorier, banque, cotis, _ = await _books(client, factory)
    assert (banque["classe"], banque["type"], banque["actif"]) == (5, "TRESORERIE", True)
    assert (cotis["classe"], cotis["type"]) == (7, "PRODUITS")
    dup = await client.post("/api/comptabilite/comptes", headers=tresorier.headers, json={
        "organisationId": str(org.id), "numeroCompte": "521", "libelle": "Autre banque"})
    assert dup.status_code == 409
    for bad in ("0521", "52A", ""):
        r = await client.post("/api/comptabilite/comptes", headers=tresorier.headers, json={
            "organisationId": str(org.id), "numeroCompte": bad, "libelle": "Mauvais"})
        assert r.status_code == 400, bad
    sent_class = await client.post("/api/comptabilite/comptes", headers=tresorier.headers, json={
        "organisationId": str(org.id), "numeroCompte": "601", "libelle": "Achats", "classe": 7})
    assert sent_class.status_code == 400
    # The same number is free in another organisation.
    other = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await compte(client, admin.headers, other.id, "521", "Banque"))["organisationId"] == str(other.id)
    listed = await client.get("/api/comptabilite/comptes", headers=tresorier.headers)
    assert [c["numeroCompte"] for c in listed.json()] == ["521", "7061"]
    classe7 = await client.get("/api/comptabilite/comptes", params={"classe": 7}, headers=admin.headers)
    assert {c["numeroCompte"] for c in classe7.json()} == {"7061"}
    audited = (await db.execute(select(AuditLog).where(AuditLog.entite_id == banque["id"]))).scalars().all()
    assert [a.type_action for a in audited] == ["CREER"]


async def test_only_bookkeepers_write_and_unknown_organisation_is_404(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    body = {"organisationId": str(org.id), "numeroCompte": "571", "libelle": "Caisse"}
    assert (await client.post("/api/comptabilite/comptes", headers=membre.headers, json=body)).status_code == 403
    assert (await client.post("/api/comptabilite/comptes", headers=secretaire.headers, json=body)).status_code == 403
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.post("/api/comptabilite/comptes", headers=admin_org.headers, json=body)).status_code == 200
    other = await factory.organisation()
    foreign = {**body, "organisationId": str(other.id)}
    assert (await client.post("/api/comptabilite/comptes", headers=admin_org.headers, json=foreign)).status_code == 404
    missing = {**body, "organisationId": str(uuid.uuid4())}
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post("/api/comptabilite/comptes", headers=admin.headers, json=missing)).status_code == 404
    user = await factory.actor(["USER"], with_membre=False)
    assert (await client.post("/api/comptabilite/comptes", headers=user.headers, json=body)).status_code == 403
    assert (await client.get("/api/comptabilite/comptes")).status_code == 401


async def test_journal_codes_are_unique_per_organisation(client, factory):
    org, tresorier, *_ = await _books(client, factory)
    dup = await client.post("/api/comptabilite/journaux", headers=tresorier.headers, json={
        "organisationId": str(org.id), "code": "BQ", "libelle": "Banque 2", "type": "BANQUE"})
    assert dup.status_code == 409
    bad_type = await client.post("/api/comptabilite/journaux", headers=tresorier.headers, json={
        "organisationId": str(org.id), "code": "VT", "libelle": "Ventes", "type": "INCONNU"})
    assert bad_type.status_code == 400
    od = await journal(client, tresorier.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    got = await client.get(f"/api/comptabilite/journaux/{od['id']}", headers=tresorier.headers)
    assert got.json()["type"] == "OPERATIONS_DIVERSES"
    listed = await client.get("/api/comptabilite/journaux", headers=tresorier.headers)
    assert [j["code"] for j in listed.json()] == ["BQ", "OD"]


async def test_balanced_entries_are_numbered_per_journal_and_year(client, factory, db):
    org, tresorier, banque, cotis, bq = await _books(client, factory)
    h = tresorier.headers
    first = await passer(client, factory, org, h, ecriture(
        bq["id"], [(banque["id"], "15000", "0"), (cotis["id"], "0", "15000")]))
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["numeroPiece"] == "BQ-2026-000001" and body["codeJournal"] == "BQ"
    assert body["totalDebit"] == body["totalCredit"] == "15000.00"
    assert [(lg["numeroCompte"], lg["debit"], lg["credit"]) for lg in body["lignes"]] == [
        ("521", "15000.00", "0.00"), ("7061", "0.00", "15000.00")]
    second = await passer(client, factory, org, h, ecriture(
        bq["id"], [(banque["id"], "500", None), (cotis["id"], None, "500")]))
    assert second.json()["numeroPiece"] == "BQ-2026-000002"
    next_year = await passer(client, factory, org, h, ecriture(
        bq["id"], [(banque["id"], "1", "0"), (cotis["id"], "0", "1")], day="2027-01-02"))
    assert next_year.json()["numeroPiece"] == "BQ-2027-000001"

    got = await client.get(f"/api/comptabilite/ecritures/{body['id']}", headers=h)
    assert got.status_code == 200 and got.json()["lignes"] == body["lignes"]
    by_journal = await client.get(f"/api/comptabilite/ecritures/journal/{bq['id']}", headers=h,
                                  params={"size": 2})
    assert by_journal.headers["X-Total-Count"] == "3"
    assert [e["numeroPiece"] for e in by_journal.json()] == ["BQ-2026-000001", "BQ-2026-000002"]
    by_org = await client.get(f"/api/comptabilite/ecritures/organisation/{org.id}", headers=h,
                              params={"dateDebut": "2027-01-01"})
    assert [e["numeroPiece"] for e in by_org.json()] == ["BQ-2027-000001"]
    audited = (await db.execute(select(AuditLog).where(AuditLog.entite_id == body["id"]))).scalar_one()
    assert audited.module == "COMPTABILITE" and audited.details["apres"]["numeroPiece"] == "BQ-2026-000001"


async def test_entry_rules(client, factory):
    org, tresorier, banque, cotis, bq = await _books(client, factory)
    h = tresorier.headers
    cases = {
        "unbalanced": [(banque["id"], "1000", "0"), (cotis["id"], "0", "900")],
        "both sides": [(banque["id"], "1000", "1000"), (cotis["id"], "0", "0.01")],
        "neither side": [(banque["id"], "0", "0"), (cotis["id"], "0", "0")],
        "negative": [(banque["id"], "-5", "0"), (cotis["id"], "0", "-5")],
        "single line": [(banque["id"], "1000", "0")],
        "unknown account": [(banque["id"], "1000", "0"), (str(uuid.uuid4()), "0", "1000")],
    }
    other = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    foreign = await compte(client, admin.headers, other.id, "7061", "Cotisations")
    cases["foreign account"] = [(banque["id"], "1000", "0"), (foreign["id"], "0", "1000")]
    inactive = await client.post("/api/comptabilite/comptes", headers=h, json={
        "organisationId": str(org.id), "numeroCompte": "7068", "libelle": "Ancien produit", "actif": False})
    cases["inactive account"] = [(banque["id"], "1000", "0"), (inactive.json()["id"], "0", "1000")]
    for name, lignes in cases.items():
        r = await passer(client, factory, org, h, ecriture(bq["id"], lignes))
        assert r.status_code == 400, name
    ok = await passer(client, factory, org, h, ecriture(
        bq["id"], [(banque["id"], "1000", "0"), (cotis["id"], "0", "1000")]))
    # Refused entries consumed no number.
    assert ok.json()["numeroPiece"] == "BQ-2026-000001"
    unknown_journal = await passer(client, factory, org, h, ecriture(
        str(uuid.uuid4()), [(banque["id"], "1", "0"), (cotis["id"], "0", "1")]))
    assert unknown_journal.status_code == 404
    # Entries are immutable: there is no way to change or delete one.
    eid = ok.json()["id"]
    assert (await client.delete(f"/api/comptabilite/ecritures/{eid}", headers=h)).status_code == 405
    assert (await client.put(f"/api/comptabilite/ecritures/{eid}", headers=h, json={})).status_code == 405


async def test_members_see_chart_and_journals_but_never_entries(client, factory):
    org, tresorier, banque, cotis, bq = await _books(client, factory)
    entry = (await passer(client, factory, org, tresorier.headers, ecriture(
        bq["id"], [(banque["id"], "1000", "0"), (cotis["id"], "0", "1000")]))).json()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    mh = membre.headers
    assert len((await client.get("/api/comptabilite/comptes", headers=mh)).json()) == 2
    assert (await client.get(f"/api/comptabilite/journaux/{bq['id']}", headers=mh)).status_code == 200
    assert (await client.get(f"/api/comptabilite/ecritures/{entry['id']}", headers=mh)).status_code == 404
    assert (await client.get(f"/api/comptabilite/ecritures/journal/{bq['id']}", headers=mh)).status_code == 403
    assert (await client.get(f"/api/comptabilite/ecritures/organisation/{org.id}", headers=mh)).status_code == 403
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    seen = await client.get(f"/api/comptabilite/ecritures/{entry['id']}", headers=president.headers)
    assert seen.status_code == 200

    other = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    sh = stranger.headers
    assert (await client.get("/api/comptabilite/comptes", headers=sh)).json() == []
    assert (await client.get("/api/comptabilite/journaux", headers=sh)).json() == []
    assert (await client.get(f"/api/comptabilite/comptes/{banque['id']}", headers=sh)).status_code == 404
    assert (await client.get(f"/api/comptabilite/journaux/{bq['id']}", headers=sh)).status_code == 404
    assert (await client.get(f"/api/comptabilite/ecritures/{entry['id']}", headers=sh)).status_code == 404
    assert (await client.get(f"/api/comptabilite/ecritures/journal/{bq['id']}", headers=sh)).status_code == 404
    assert (await client.get(f"/api/comptabilite/ecritures/organisation/{org.id}", headers=sh)).status_code == 404
    post = await passer(client, factory, org, sh, ecriture(
        bq["id"], [(banque["id"], "1", "0"), (cotis["id"], "0", "1")]))
    assert post.status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"/api/comptabilite/ecritures/{entry['id']}", headers=admin.headers)).status_code == 200
