from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.paiements import paiement_valide
from unionflow.lcbft.service import evaluer_paiement
from unionflow.models import AuditLog


async def _alerts(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    op = await evaluer_paiement(db, await paiement_valide(db, membre, org, "6000000", "WAVE"))
    cash = await evaluer_paiement(db, await paiement_valide(db, membre, org, "4000000", "ESPECES"))
    await db.flush()
    return org, [*op, *cash]


async def test_list_filter_count_and_scope(client, db, factory):
    org, alerts = await _alerts(db, factory)
    other, _ = await _alerts(db, factory)
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    h = admin_org.headers
    page = (await client.get("/api/alertes-lcb-ft", headers=h)).json()
    assert page["totalElements"] == 3 and page["size"] == 20
    assert {a["organisationId"] for a in page["content"]} == {str(org.id)}
    cash = (await client.get("/api/alertes-lcb-ft", headers=h, params={"typeAlerte": "ESPECES_ELEVEES"})).json()
    assert [a["montant"] for a in cash["content"]] == ["4000000.00"]
    foreign = await client.get("/api/alertes-lcb-ft", headers=h, params={"organisationId": str(other.id)})
    assert foreign.json()["totalElements"] == 0
    counted = await client.get("/api/alertes-lcb-ft/stats/non-traitees", headers=h)
    body = counted.json()
    assert body.pop("calculeLe") and body == {"organisationId": None, "nonTraitees": 3}

    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    all_orgs = await client.get("/api/alertes-lcb-ft", headers=sa.headers,
                                params={"organisationId": str(other.id), "traitee": "false"})
    assert all_orgs.json()["totalElements"] == 3
    stats = await client.get("/api/alertes-lcb-ft/stats/non-traitees", headers=sa.headers,
                             params={"organisationId": str(other.id)})
    assert stats.json()["nonTraitees"] == 3
    today = alerts[0].date_alerte.date().isoformat()
    dated = await client.get("/api/alertes-lcb-ft", headers=h, params={"dateDebut": today, "dateFin": today})
    assert dated.json()["totalElements"] == 3
    before = await client.get("/api/alertes-lcb-ft", headers=h, params={"dateFin": "2020-01-01"})
    assert before.json()["totalElements"] == 0

    for bad in ({"typeAlerte": "AUTRE"}, {"dateDebut": "hier"}, {"organisationId": "abc"}, {"traitee": "peut-etre"},
                {"size": 0}):
        assert (await client.get("/api/alertes-lcb-ft", headers=h, params=bad)).status_code == 400, bad

    for id_ in (str(alerts[0].id),):
        stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
        assert (await client.get(f"/api/alertes-lcb-ft/{id_}", headers=stranger.headers)).status_code == 404
        assert (await client.get(f"/api/alertes-lcb-ft/{id_}", headers=h)).status_code == 200
    assert (await client.get("/api/alertes-lcb-ft/pas-un-uuid", headers=h)).status_code == 404
    assert (await client.get(f"/api/alertes-lcb-ft/{uuid.uuid4()}", headers=h)).status_code == 404


async def test_roles(client, db, factory):
    org, alerts = await _alerts(db, factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    for actor in (admin, tresorier):
        assert (await client.get("/api/alertes-lcb-ft", headers=actor.headers)).status_code == 403
        assert (await client.post(f"/api/alertes-lcb-ft/{alerts[0].id}/traiter", headers=actor.headers,
                                  json={"commentaire": "x"})).status_code == 403
    assert (await client.get("/api/alertes-lcb-ft")).status_code == 401


async def test_processing_an_alert(client, db, factory):
    org, alerts = await _alerts(db, factory)
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    h = admin_org.headers
    url = f"/api/alertes-lcb-ft/{alerts[0].id}/traiter"
    for bad in ({}, {"commentaire": "  "}, {"commentaire": "ok", "motif": "x"}, {"commentaire": "ok", "decision": "X"},
                {"commentaire": 12}):
        assert (await client.post(url, headers=h, json=bad)).status_code == 400, bad
    done = await client.post(url, headers=h, json={"commentaire": "Vente d'un terrain, justificatif notarié reçu"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["traitee"] is True and body["traiteePar"] == admin_org.user.email
    assert body["decision"] == "SANS_SUITE" and body["dateTraitement"]
    again = await client.post(url, headers=h, json={"commentaire": "autre avis", "decision": "DECLARATION_SOUPCON"})
    assert again.status_code == 409
    kept = await client.get(f"/api/alertes-lcb-ft/{alerts[0].id}", headers=h)
    assert kept.json()["commentaire"].startswith("Vente")
    declared = await client.post(f"/api/alertes-lcb-ft/{alerts[1].id}/traiter", headers=h,
                                 json={"commentaire": "Origine des fonds non justifiée",
                                       "decision": "DECLARATION_SOUPCON"})
    assert declared.json()["decision"] == "DECLARATION_SOUPCON"
    stats = await client.get("/api/alertes-lcb-ft/stats/non-traitees", headers=h,
                             params={"organisationId": str(org.id)})
    assert {k: v for k, v in stats.json().items() if k != "calculeLe"} == {"organisationId": str(org.id),
                                                                          "nonTraitees": 1}
    processed = await client.get("/api/alertes-lcb-ft", headers=h, params={"traitee": "true"})
    assert processed.json()["totalElements"] == 2
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == str(alerts[0].id),
                                                     AuditLog.type_action == "TRAITER"))).scalar_one()
    assert entry.details["avant"]["traitee"] is False and entry.details["apres"]["traitee"] is True


async def test_parametres_endpoints(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    h = admin_org.headers
    url = f"/api/parametres-lcb-ft/organisation/{org.id}"
    default = (await client.get(url, headers=h)).json()
    assert default["personnalise"] is False and default["seuilOperation"] == "5000000.00"
    assert default["periodeCumulJours"] == 30
    assert (await client.get("/api/parametres-lcb-ft", headers=h)).json() == []
    body = {"seuilOperation": "2000000", "seuilCumul": "3000000", "periodeCumulJours": 15, "seuilEspeces": "500000"}
    for bad in ({**body, "periodeCumulJours": 0}, {**body, "seuilEspeces": "-1"}, {"seuilOperation": "1"},
                {**body, "devise": "EUR"}):
        assert (await client.put(url, headers=h, json=bad)).status_code == 400, bad
    saved = (await client.put(url, headers=h, json=body)).json()
    assert saved["personnalise"] is True and saved["seuilCumul"] == "3000000.00" and saved["modifiePar"]
    listed = (await client.get("/api/parametres-lcb-ft", headers=h)).json()
    assert [p["organisationId"] for p in listed] == [str(org.id)]
    assert (await client.get(f"/api/parametres-lcb-ft/organisation/{other.id}", headers=h)).status_code == 404
    assert (await client.put(f"/api/parametres-lcb-ft/organisation/{other.id}", headers=h,
                             json=body)).status_code == 404

    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    conf = await client.put("/api/configuration/lcbft.seuil_declaration", headers=sa.headers,
                            json={"valeur": 7000000})
    assert conf.status_code == 200
    other_default = (await client.get(f"/api/parametres-lcb-ft/organisation/{other.id}", headers=sa.headers)).json()
    assert other_default["seuilOperation"] == "7000000.00"
    assert (await client.get(url, headers=sa.headers)).json()["seuilOperation"] == "2000000.00"


async def test_authentication_and_role_come_before_body_validation(client, factory):
    url = f"/api/alertes-lcb-ft/{uuid.uuid4()}/traiter"
    malformed = await client.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    assert malformed.status_code == 401
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post(url, json={"commentaire": 3}, headers=admin.headers)).status_code == 403
