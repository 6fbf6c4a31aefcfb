from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from tests.factories.finance import demande_aide
from unionflow.models import AuditLog, TypeReference

URL = "/api/types-reference"


async def _admin(factory):
    return await factory.actor(["ADMIN"], with_membre=False)


async def test_seeded_entries_are_system_and_readable_by_anyone(client, factory):
    member = await factory.actor(["USER"])
    listed = await client.get(URL, headers=member.headers, params={"domaine": "TYPE_AIDE"})
    assert listed.status_code == 200, listed.text
    rows = listed.json()["content"]
    assert [r["code"] for r in rows][:3] == ["DECES", "MALADIE", "MARIAGE"] and all(r["systeme"] for r in rows)
    domaines = {d["domaine"]: d for d in (await client.get(f"{URL}/domaines", headers=member.headers)).json()}
    assert {"TYPE_AIDE", "TYPE_DOCUMENT", "TYPE_EVENEMENT"} <= set(domaines)
    assert domaines["TYPE_AIDE"]["nombre"] == 7
    searched = await client.get(URL, headers=member.headers, params={"q": "obsèques"})
    assert searched.json()["totalElements"] == 0
    found = await client.get(URL, headers=member.headers, params={"q": "scolar"})
    assert [r["code"] for r in found.json()["content"]] == ["SCOLARITE"]
    assert (await client.get(URL, headers=member.headers, params={"domaine": "type aide"})).status_code == 400
    assert (await client.get(URL)).status_code == 401
    assert (await client.get(f"{URL}/{uuid.uuid4()}", headers=member.headers)).status_code == 404

    system = rows[0]
    admin = await _admin(factory)
    refused = await client.delete(f"{URL}/{system['id']}", headers=admin.headers)
    assert refused.status_code == 409 and "système" in refused.text
    renamed = await client.put(f"{URL}/{system['id']}", headers=admin.headers, json={"libelle": "Décès d'un proche"})
    assert renamed.json()["libelle"] == "Décès d'un proche" and renamed.json()["code"] == "DECES"
    assert (await client.put(f"{URL}/{system['id']}", headers=admin.headers,
                             json={"code": "MORT"})).status_code == 400


async def test_crud_rights_and_uniqueness(client, factory, db):
    admin = await _admin(factory)
    body = {"domaine": "TYPE_EVENEMENT", "code": "TOURNOI", "libelle": "Tournoi sportif", "ordre": 7}
    member = await factory.actor(["USER"])
    org = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.post(URL, headers=member.headers, json=body)).status_code == 403
    assert (await client.post(URL, headers=org_admin.headers, json=body)).status_code == 403
    created = await client.post(URL, headers=admin.headers, json=body)
    assert created.status_code == 201, created.text
    entry = created.json()
    assert (entry["systeme"], entry["actif"], entry["ordre"]) == (False, True, 7)
    assert (await client.post(URL, headers=admin.headers, json=body)).status_code == 409
    assert (await client.post(URL, headers=admin.headers, json={**body, "systeme": True})).status_code == 400
    assert (await client.post(URL, headers=admin.headers, json={**body, "code": "tournoi"})).status_code == 400
    same_code_elsewhere = await client.post(URL, headers=admin.headers, json={**body, "domaine": "TYPE_DOCUMENT"})
    assert same_code_elsewhere.status_code == 201

    # Event creation accepts the new code at once; a deactivated code is refused for new events.
    event = {"titre": "Tournoi de l'amitié", "typeEvenement": "TOURNOI", "organisationId": str(org.id),
             "dateDebut": (datetime.now(UTC) + timedelta(days=10)).isoformat(),
             "dateFin": (datetime.now(UTC) + timedelta(days=10, hours=3)).isoformat()}
    made = await client.post("/api/evenements", headers=org_admin.headers, json=event)
    assert made.status_code in (200, 201), made.text
    assert (await client.put(f"{URL}/{entry['id']}", headers=member.headers, json={"actif": False})).status_code == 403
    assert (await client.put(f"{URL}/{entry['id']}", headers=admin.headers, json={"libelle": None})).status_code == 400

    # In use: DELETE deactivates instead of deleting.
    deactivated = await client.delete(f"{URL}/{entry['id']}", headers=admin.headers)
    assert deactivated.status_code == 200 and deactivated.json()["actif"] is False
    assert (await db.execute(select(TypeReference).where(TypeReference.id == uuid.UUID(entry["id"])))).scalar_one()
    refused = await client.post("/api/evenements", headers=org_admin.headers, json=event)
    assert refused.status_code == 400
    inactive = await client.get(URL, headers=member.headers, params={"domaine": "TYPE_EVENEMENT", "actif": False})
    assert [r["code"] for r in inactive.json()["content"]] == ["TOURNOI"]

    # Unused: deleted.
    unused = same_code_elsewhere.json()
    assert (await client.delete(f"{URL}/{unused['id']}", headers=member.headers)).status_code == 403
    assert (await client.delete(f"{URL}/{unused['id']}", headers=admin.headers)).status_code == 204
    assert (await client.get(f"{URL}/{unused['id']}", headers=admin.headers)).status_code == 404
    assert (await client.delete(f"{URL}/{unused['id']}", headers=admin.headers)).status_code == 404
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == entry["id"])
                                     .order_by(AuditLog.date_heure))).scalars())
    assert actions == ["CREER", "DESACTIVER"]


async def test_aid_type_in_use_by_an_aid_request_is_deactivated(client, factory, db):
    admin = await _admin(factory)
    org = await factory.organisation()
    entry = (await client.post(URL, headers=admin.headers, json={
        "domaine": "TYPE_AIDE", "code": "AUTRE_SOUTIEN", "libelle": "Autre soutien"})).json()
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    free = (await client.post(URL, headers=sa.headers, json={
        "domaine": "TYPE_AIDE", "code": "LIBRE", "libelle": "Libre"})).json()
    assert (await client.delete(f"{URL}/{free['id']}", headers=sa.headers)).status_code == 204
    # Requests recorded under a code (e.g. imported history) keep it readable: the entry is only deactivated.
    await demande_aide(db, org, await factory.membre(org), type_aide="AUTRE_SOUTIEN")
    kept = await client.delete(f"{URL}/{entry['id']}", headers=admin.headers)
    assert kept.status_code == 200 and kept.json()["actif"] is False
    again = await client.delete(f"{URL}/{entry['id']}", headers=admin.headers)
    assert again.status_code == 200
