from __future__ import annotations

from sqlalchemy import select

from unionflow.configuration.service import valeur
from unionflow.models import AuditLog


async def test_defaults_are_listed_and_readable(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    listed = await client.get("/api/configuration", headers=admin.headers)
    assert listed.status_code == 200
    entries = {e["cle"]: e for e in listed.json()}
    assert entries["devise.defaut"]["valeur"] == "XOF" and entries["devise.defaut"]["parDefaut"] is True
    assert entries["cotisation.jour_echeance"] == {**entries["cotisation.jour_echeance"], "valeur": 5,
                                                   "type": "NUMBER"}
    assert entries["lcbft.seuil_declaration"]["valeur"] == 5000000
    assert [e["cle"] for e in listed.json()] == sorted(entries)
    one = await client.get("/api/configuration/lcbft.seuil_declaration", headers=admin.headers)
    assert one.status_code == 200 and one.json()["type"] == "NUMBER"
    assert (await client.get("/api/configuration/inconnue.cle", headers=admin.headers)).status_code == 404


async def test_roles(client, factory):
    org = await factory.organisation()
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.get("/api/configuration", headers=admin_org.headers)).status_code == 403
    assert (await client.put("/api/configuration/devise.defaut", headers=admin_org.headers,
                             json={"valeur": "EUR"})).status_code == 403
    assert (await client.get("/api/configuration")).status_code == 401
    super_admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await client.get("/api/configuration", headers=super_admin.headers)).status_code == 200


async def test_update_existing_key_is_typed_validated_and_audited(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    h = admin.headers
    url = "/api/configuration/lcbft.seuil_declaration"
    for bad in ({"valeur": "beaucoup"}, {"valeur": True}, {"valeur": -1}, {"valeur": None}, {},
                {"valeur": 10, "type": "STRING"}, {"valeur": 10, "cle": "x"}):
        assert (await client.put(url, headers=h, json=bad)).status_code == 400, bad
    updated = await client.put(url, headers=h, json={"valeur": "3000000", "description": "Seuil CENTIF"})
    assert updated.status_code == 200, updated.text
    body = updated.json()
    assert body["valeur"] == 3000000 and body["parDefaut"] is False and body["modifiePar"] == admin.user.email
    assert body["description"] == "Seuil CENTIF"
    assert await valeur(db, "lcbft.seuil_declaration") == 3000000
    again = await client.put(url, headers=h, json={"valeur": 2500000.5})
    assert again.json()["valeur"] == 2500000.5 and again.json()["description"] == "Seuil CENTIF"

    assert (await client.put("/api/configuration/cotisation.jour_echeance", headers=h,
                             json={"valeur": 31})).status_code == 400
    assert (await client.put("/api/configuration/devise.defaut", headers=h, json={"valeur": "euro"})).status_code == 400

    entries = (await db.execute(select(AuditLog).where(AuditLog.entite_id == "lcbft.seuil_declaration")
                                .order_by(AuditLog.date_heure))).scalars().all()
    assert [e.type_action for e in entries] == ["UPDATE", "UPDATE"]
    assert entries[0].details["avant"]["valeur"] == 5000000 and entries[0].details["apres"]["valeur"] == 3000000


async def test_put_creates_unknown_key_with_inferred_or_given_type(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    h = admin.headers
    created = await client.put("/api/configuration/notifications.sms_actif", headers=h, json={"valeur": "true",
                                                                                              "type": "BOOLEAN"})
    assert created.status_code == 200 and created.json()["valeur"] is True
    assert (await client.put("/api/configuration/notifications.sms_actif", headers=h,
                             json={"valeur": "oui"})).status_code == 400
    blob = await client.put("/api/configuration/wave.marchands", headers=h,
                            json={"valeur": {"dakar": ["M1", "M2"]}})
    assert blob.json()["type"] == "JSON" and blob.json()["valeur"] == {"dakar": ["M1", "M2"]}
    text = await client.put("/api/configuration/app.nom", headers=h, json={"valeur": "UnionFlow"})
    assert text.json()["type"] == "STRING"
    listed = {e["cle"] for e in (await client.get("/api/configuration", headers=h)).json()}
    assert {"notifications.sms_actif", "wave.marchands", "app.nom", "devise.defaut"} <= listed
    for bad_key in ("Majuscule", "a..b", "espace%20ici", ".debut"):
        assert (await client.put(f"/api/configuration/{bad_key}", headers=h,
                                 json={"valeur": 1})).status_code == 400, bad_key
