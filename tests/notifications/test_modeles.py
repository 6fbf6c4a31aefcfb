"""Templates: CRUD for administrators, organisation templates over global ones, safe placeholders."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.notifications import BASE, staff
from unionflow.models import AuditLog, Notification

URL = f"{BASE}/modeles"


def modele(**values):
    body = {"code": "CONVOCATION_AG", "canal": "EMAIL", "libelle": "Convocation",
            "sujet": "Convocation: {organisation}", "corps": "Bonjour {prenom} {nom}, réunion le {jour}."}
    body.update(values)
    return body


async def test_template_crud_and_scope(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org, org_admin = await staff(factory, ("MEMBRE", "ADMIN_ORGANISATION"))
    _other, other_admin = await staff(factory, ("MEMBRE", "ADMIN_ORGANISATION"))
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])

    assert (await client.post(URL, headers=secretaire.headers, json=modele())).status_code == 403
    assert (await client.post(URL, headers=org_admin.headers, json=modele())).status_code == 403  # global
    glob = await client.post(URL, headers=admin.headers, json=modele())
    assert glob.status_code == 201, glob.text
    assert glob.json()["variables"] == ["jour", "nom", "organisation", "prenom"]
    assert glob.json()["organisationId"] is None
    assert (await client.post(URL, headers=admin.headers, json=modele())).status_code == 409
    own = await client.post(URL, headers=org_admin.headers, json=modele(organisationId=str(org.id),
                                                                        sujet="AG de {organisation}"))
    assert own.status_code == 201, own.text
    assert (await client.post(URL, headers=other_admin.headers,
                              json=modele(organisationId=str(org.id)))).status_code == 403
    assert (await client.post(URL, headers=admin.headers,
                              json=modele(organisationId=str(uuid.uuid4())))).status_code == 404
    for bad in ({"corps": "{prenom.__init__.__globals__}"}, {"sujet": "{x[0]}"}, {"corps": "{prenom:>10}"},
                {"code": "minuscule"}, {"canal": "FAX"}, {"actif": True, "portee": "GLOBAL"}):
        response = await client.post(URL, headers=admin.headers, json=modele(**{"code": "AUTRE", **bad}))
        assert response.status_code == 400, bad

    listing = (await client.get(URL, headers=other_admin.headers)).json()
    assert {m["id"] for m in listing["content"]} >= {glob.json()["id"]}
    assert own.json()["id"] not in {m["id"] for m in listing["content"]}
    assert (await client.get(f"{URL}/{own.json()['id']}", headers=other_admin.headers)).status_code == 404
    assert (await client.get(f"{URL}/{own.json()['id']}", headers=org_admin.headers)).status_code == 200
    assert (await client.put(f"{URL}/{glob.json()['id']}", headers=org_admin.headers,
                             json={"sujet": "x"})).status_code == 403
    updated = await client.put(f"{URL}/{own.json()['id']}", headers=org_admin.headers,
                               json={"corps": "Salut {prenom}, le {jour}.", "actif": True})
    assert updated.status_code == 200 and updated.json()["variables"] == ["jour", "organisation", "prenom"]
    assert (await client.put(f"{URL}/{own.json()['id']}", headers=org_admin.headers,
                             json={"code": "AUTRE"})).status_code == 400
    assert (await client.put(f"{URL}/{own.json()['id']}", headers=org_admin.headers,
                             json={"corps": "{a.b}"})).status_code == 400
    audit = (await db.execute(select(AuditLog).where(AuditLog.entite_id == own.json()["id"])
                              .order_by(AuditLog.date_heure))).scalars().all()
    assert [a.type_action for a in audit] == ["CREER", "MODIFIER"]

    removed = await client.delete(f"{URL}/{own.json()['id']}", headers=org_admin.headers)
    assert removed.status_code == 204
    assert (await client.get(f"{URL}/{own.json()['id']}", headers=org_admin.headers)).status_code == 404


async def test_sending_with_template_prefers_organisation_and_channel(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org, org_admin = await staff(factory, ("MEMBRE", "ADMIN_ORGANISATION"))
    other_org, other_admin = await staff(factory, ("MEMBRE", "ADMIN_ORGANISATION"))
    a = await factory.membre(org, prenom="Fatou", nom="Sall")
    b = await factory.membre(other_org)
    assert (await client.post(URL, headers=admin.headers, json=modele())).status_code == 201
    assert (await client.post(URL, headers=admin.headers, json=modele(
        canal="SMS", sujet="AG", corps="SMS {prenom}: AG le {jour}"))).status_code == 201
    assert (await client.post(URL, headers=org_admin.headers, json=modele(
        organisationId=str(org.id), corps="Chère {prenom}, notre AG ({numeroMembre}) le {jour}."))).status_code == 201

    sent = await client.post(BASE, headers=org_admin.headers, json={
        "organisationId": str(org.id), "membreIds": [str(a.id)], "codeModele": "CONVOCATION_AG",
        "canaux": ["EMAIL", "SMS"], "variables": {"jour": "12/12"}})
    assert sent.status_code == 201, sent.text
    rows = {r.canal: r for r in (await db.execute(select(Notification).where(
        Notification.membre_id == a.id))).scalars()}
    assert rows["EMAIL"].corps == f"Chère Fatou, notre AG ({a.numero_membre}) le 12/12."
    assert rows["EMAIL"].sujet == f"Convocation: {org.nom}" and rows["EMAIL"].code_modele == "CONVOCATION_AG"
    assert rows["SMS"].corps == "SMS Fatou: AG le 12/12"
    # The other organisation only has the global template.
    await client.post(BASE, headers=other_admin.headers, json={
        "organisationId": str(other_org.id), "membreIds": [str(b.id)], "codeModele": "CONVOCATION_AG",
        "variables": {"jour": "13/12"}})
    row = (await db.execute(select(Notification).where(Notification.membre_id == b.id))).scalar_one()
    assert row.corps == f"Bonjour {b.prenom} {b.nom}, réunion le 13/12."
    missing_var = await client.post(BASE, headers=org_admin.headers, json={
        "organisationId": str(org.id), "membreIds": [str(a.id)], "codeModele": "CONVOCATION_AG"})
    assert missing_var.status_code == 400 and "jour" in missing_var.json()["detail"]
    unknown = await client.post(BASE, headers=org_admin.headers, json={
        "organisationId": str(org.id), "tousMembresActifs": True, "codeModele": "INCONNU"})
    assert unknown.status_code == 404
    # An inactive template is not used.
    glob_id = (await client.get(URL, headers=admin.headers, params={"code": "CONVOCATION_AG"})).json()["content"]
    for m in glob_id:
        await client.put(f"{URL}/{m['id']}", headers=admin.headers, json={"actif": False})
    assert (await client.post(BASE, headers=other_admin.headers, json={
        "organisationId": str(other_org.id), "membreIds": [str(b.id)], "codeModele": "CONVOCATION_AG",
        "variables": {"jour": "13/12"}})).status_code == 404
