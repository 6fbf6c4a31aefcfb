from __future__ import annotations

import pytest
from sqlalchemy import select

from unionflow.configuration.service import DEFAUTS, valeur
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
    assert [e.type_action for e in entries] == ["MODIFIER", "MODIFIER"]
    assert entries[0].details["avant"]["valeur"] == 5000000 and entries[0].details["apres"]["valeur"] == 3000000


async def test_only_defined_keys_exist(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    h = admin.headers
    unknown = await client.put("/api/configuration/notifications.sms_actif", headers=h, json={"valeur": True})
    assert unknown.status_code == 404 and "devise.defaut" in unknown.json()["detail"]
    assert (await client.get("/api/configuration/notifications.sms_actif", headers=h)).status_code == 404
    listed = {e["cle"] for e in (await client.get("/api/configuration", headers=h)).json()}
    assert listed == set(DEFAUTS)
    for bad_key in ("Majuscule", "a..b", "espace%20ici", ".debut"):
        assert (await client.put(f"/api/configuration/{bad_key}", headers=h,
                                 json={"valeur": 1})).status_code == 400, bad_key


@pytest.mark.parametrize(("cle", "bad", "good"), [
    ("cotisation.jour_echeance", 12.5, 12), ("lcbft.periode_cumul_jours", "12.5", "45"),
    ("lcbft.seuil_especes", "1000.505", "1000.50"), ("finance.approbation.seuil_double", 0.001, 2500000),
    ("cotisation.jour_echeance", 0, 28), ("lcbft.seuil_cumul", -1, 0), ("devise.defaut", "xof", "EUR"),
    ("devise.defaut", 978, "GNF"),
])
async def test_every_key_is_typed_and_bounded(client, factory, cle, bad, good):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    refused = await client.put(f"/api/configuration/{cle}", headers=admin.headers, json={"valeur": bad})
    assert refused.status_code == 400 and refused.json()["detail"].startswith("valeur: "), refused.text
    assert (await client.put(f"/api/configuration/{cle}", headers=admin.headers,
                             json={"valeur": good})).status_code == 200


async def test_devise_defaut_is_the_currency_of_a_new_organisation(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    h = admin.headers
    body = {"nom": "Mutuelle des enseignants", "typeOrganisation": "ASSOCIATION"}
    assert (await client.post("/api/organisations", headers=h, json=body)).json()["devise"] == "XOF"
    assert (await client.put("/api/configuration/devise.defaut", headers=h, json={"valeur": "EUR"})).status_code == 200
    euro = await client.post("/api/organisations", headers=h, json={**body, "nom": "Diaspora Paris"})
    assert euro.status_code == 201, euro.text
    assert euro.json()["devise"] == "EUR"
    explicit = await client.post("/api/organisations", headers=h, json={**body, "nom": "Section Conakry",
                                                                         "devise": "GNF"})
    assert explicit.json()["devise"] == "GNF"


async def test_jour_echeance_dates_dues_created_without_due_date(client, factory):
    from tests.factories.cotisations import treasury

    org, treasurer, a, _b = await treasury(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.put("/api/configuration/cotisation.jour_echeance", headers=admin.headers,
                             json={"valeur": 12})).status_code == 200
    created = await client.post("/api/cotisations", headers=treasurer.headers, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "typeCotisation": "MENSUELLE",
        "montantDu": "2500", "annee": 2027, "mois": 3})
    assert created.status_code == 201, created.text
    assert created.json()["dateEcheance"] == "2027-03-12"
    generated = await client.post("/api/cotisations/generer", headers=treasurer.headers, json={
        "organisationId": str(org.id), "typeCotisation": "ANNUELLE", "annee": 2027, "montant": "12000"})
    assert generated.status_code == 200, generated.text
    mine = (await client.get("/api/cotisations/mes-cotisations", headers=a.headers)).json()["content"]
    assert {c["dateEcheance"] for c in mine} == {"2027-03-12", "2027-01-12"}


async def test_lcbft_keys_are_the_default_thresholds(client, factory):
    org = await factory.organisation()
    sa = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    for cle, value in (("lcbft.seuil_declaration", 4000000), ("lcbft.seuil_cumul", "8000000.50"),
                       ("lcbft.periode_cumul_jours", 60), ("lcbft.seuil_especes", 750000)):
        assert (await client.put(f"/api/configuration/{cle}", headers=sa.headers,
                                 json={"valeur": value})).status_code == 200
    seuils = (await client.get(f"/api/parametres-lcb-ft/organisation/{org.id}", headers=sa.headers)).json()
    assert (seuils["seuilOperation"], seuils["seuilCumul"], seuils["periodeCumulJours"], seuils["seuilEspeces"]) \
        == ("4000000.00", "8000000.50", 60, "750000.00")
