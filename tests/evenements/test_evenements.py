from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from tests.factories.evenements import create_event, event_body
from unionflow.models import AuditLog, Evenement, NotificationEvenement


async def _organiser(factory, org=None, roles=("MEMBRE", "ORGANISATEUR_EVENEMENT")):
    org = org or await factory.organisation()
    actor = await factory.actor(["USER"], organisation=org, org_roles=list(roles))
    return org, actor


async def test_create_read_update_with_audit(client, factory, db):
    org, organiser = await _organiser(factory)
    created = await create_event(client, organiser.headers, org.id, prix="2500.50")
    assert created["statut"] == "PLANIFIE" and created["prix"] == "2500.50" and created["devise"] == "XOF"
    assert created["organisationId"] == str(org.id) and created["placesRestantes"] == 50
    assert created["nombreInscrits"] == 0 and created["inscriptionsOuvertes"] is True

    got = await client.get(f"/api/evenements/{created['id']}", headers=organiser.headers)
    assert got.status_code == 200 and got.json()["titre"] == "Assemblée générale annuelle"

    body = event_body(org.id, titre="AG reportée", capaciteMax=80)
    updated = await client.put(f"/api/evenements/{created['id']}", headers=organiser.headers, json=body)
    assert updated.status_code == 200, updated.text
    assert updated.json()["titre"] == "AG reportée" and updated.json()["placesRestantes"] == 80

    confirmed = await client.post(f"/api/evenements/{created['id']}/confirmer", headers=organiser.headers)
    assert confirmed.json()["statut"] == "CONFIRME"
    again = await client.post(f"/api/evenements/{created['id']}/confirmer", headers=organiser.headers)
    assert again.status_code == 400

    actions = (await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == created["id"]))).scalars()
    assert set(actions) == {"CREER", "MODIFIER", "CONFIRMER"}


async def test_create_defaults_to_active_organisation(client, factory):
    org, organiser = await _organiser(factory, roles=("MEMBRE", "SECRETAIRE"))
    created = await create_event(client, organiser.headers)
    assert created["organisationId"] == str(org.id)


async def test_invalid_data_is_400(client, factory):
    org, organiser = await _organiser(factory)
    h = organiser.headers
    bad_type = await client.post("/api/evenements", headers=h, json=event_body(org.id, typeEvenement="KERMESSE"))
    assert bad_type.status_code == 400 and "KERMESSE" in bad_type.json()["detail"]
    start = datetime.now(UTC) + timedelta(days=3)
    bad_dates = await client.post("/api/evenements", headers=h, json=event_body(
        org.id, dateDebut=start.isoformat(), dateFin=(start - timedelta(hours=1)).isoformat()))
    assert bad_dates.status_code == 400
    server_managed = await client.post("/api/evenements", headers=h, json=event_body(org.id, statut="CONFIRME"))
    assert server_managed.status_code == 400
    assert any(e["field"] == "statut" for e in server_managed.json()["errors"])
    bad_capacity = await client.post("/api/evenements", headers=h, json=event_body(org.id, capaciteMax=0))
    assert bad_capacity.status_code == 400
    bad_visibility = await client.post("/api/evenements", headers=h, json=event_body(org.id, visibilite="SECRET"))
    assert bad_visibility.status_code == 400


async def test_roles_and_organiser_scope(client, factory):
    org, organiser = await _organiser(factory)
    other_org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    assert (await client.post("/api/evenements", headers=member.headers,
                              json=event_body(org.id))).status_code == 403
    assert (await client.post("/api/evenements", json=event_body(org.id))).status_code == 401
    # An organiser of one organisation cannot organise for another one.
    assert (await client.post("/api/evenements", headers=organiser.headers,
                              json=event_body(other_org.id))).status_code == 403
    assert (await client.post("/api/evenements", headers=organiser.headers,
                              json=event_body(uuid.uuid4()))).status_code == 404
    created = await create_event(client, organiser.headers, org.id)
    other_organiser = (await _organiser(factory, other_org))[1]
    response = await client.put(f"/api/evenements/{created['id']}", headers=other_organiser.headers,
                                json=event_body(org.id))
    assert response.status_code == 403
    # count is for ADMIN, ADMIN_ORGANISATION, SUPER_ADMIN only.
    assert (await client.get("/api/evenements/count", headers=organiser.headers)).status_code == 403
    # a-venir, recherche, type, get are RS-EVT-READ2: USER alone is refused.
    user = await factory.actor(["USER"], with_membre=False)
    for path in ("/api/evenements/a-venir", "/api/evenements/recherche", "/api/evenements/type/FORMATION",
                 f"/api/evenements/{created['id']}"):
        assert (await client.get(path, headers=user.headers)).status_code == 403, path
    assert (await client.get("/api/evenements", headers=user.headers)).status_code == 200
    assert (await client.get("/api/evenements/statistiques", headers=member.headers)).status_code == 403


async def test_visibility_members_only_events(client, factory):
    org, organiser = await _organiser(factory)
    private = await create_event(client, organiser.headers, org.id, visibilite="MEMBRES", titre="Réunion du bureau")
    public = await create_event(client, organiser.headers, org.id, titre="Journée portes ouvertes")
    insider = await factory.actor(["USER"], organisation=org)
    outsider = await factory.actor(["USER"], organisation=await factory.organisation())
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"/api/evenements/{private['id']}", headers=insider.headers)).status_code == 200
    assert (await client.get(f"/api/evenements/{private['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get(f"/api/evenements/{private['id']}", headers=admin.headers)).status_code == 200
    assert (await client.get(f"/api/evenements/{public['id']}", headers=outsider.headers)).status_code == 200
    listing = await client.get("/api/evenements", params={"size": 200}, headers=outsider.headers)
    ids = {e["id"] for e in listing.json()["content"]}
    assert public["id"] in ids and private["id"] not in ids
    anonymous = await client.get("/api/evenements/publics", params={"size": 200})
    assert anonymous.status_code == 200
    anon_ids = {e["id"] for e in anonymous.json()["content"]}
    assert public["id"] in anon_ids and private["id"] not in anon_ids
    assert (await client.get(f"/api/evenements/{uuid.uuid4()}", headers=admin.headers)).status_code == 404


async def test_list_sort_direction_paging_and_active_only(client, factory, db):
    org, organiser = await _organiser(factory)
    h = organiser.headers
    late = await create_event(client, h, org.id, titre="Zumba solidaire", days=30, visibilite="MEMBRES")
    early = await create_event(client, h, org.id, titre="Atelier épargne", days=5, visibilite="MEMBRES")
    finished = await create_event(client, h, org.id, titre="Formation passée", days=2, visibilite="MEMBRES")
    cancelled = await create_event(client, h, org.id, titre="Kermesse annulée", days=8, visibilite="MEMBRES")
    assert (await client.delete(f"/api/evenements/{cancelled['id']}", headers=h)).status_code == 204
    past = datetime.now(UTC) - timedelta(days=3)
    await db.execute(update(Evenement).where(Evenement.id == uuid.UUID(finished["id"]))
                     .values(date_debut=past, date_fin=past + timedelta(hours=2)))
    member = await factory.actor(["USER"], organisation=org)

    default = (await client.get("/api/evenements", headers=member.headers)).json()
    assert [e["id"] for e in default["content"]] == [early["id"], late["id"]]
    assert default["size"] == 20 and default["page"] == 0 and default["totalElements"] == 2
    desc = (await client.get("/api/evenements", params={"direction": "desc"}, headers=member.headers)).json()
    assert [e["id"] for e in desc["content"]] == [late["id"], early["id"]]
    by_title = (await client.get("/api/evenements", params={"sort": "titre"}, headers=member.headers)).json()
    assert [e["titre"] for e in by_title["content"]] == ["Atelier épargne", "Zumba solidaire"]
    paged = (await client.get("/api/evenements", params={"size": 1, "page": 1}, headers=member.headers)).json()
    assert [e["id"] for e in paged["content"]] == [late["id"]] and paged["totalPages"] == 2 and paged["last"]

    for params in ({"sort": "lieu"}, {"direction": "up"}, {"size": 0}, {"page": -1}, {"size": 201}):
        assert (await client.get("/api/evenements", params=params, headers=member.headers)).status_code == 400

    # Search covers every status; the effective status is derived from the dates.
    found = (await client.get("/api/evenements/recherche", params={"q": "FORMATION"}, headers=member.headers)).json()
    assert [(e["id"], e["statut"]) for e in found["content"]] == [(finished["id"], "TERMINE")]
    by_lieu = (await client.get("/api/evenements/recherche", params={"q": "thiès"}, headers=member.headers)).json()
    assert by_lieu["totalElements"] == 4
    upcoming = (await client.get("/api/evenements/a-venir", headers=member.headers)).json()
    assert upcoming["size"] == 10 and [e["id"] for e in upcoming["content"]] == [early["id"], late["id"]]


async def test_by_type_count_and_connectivity(client, factory):
    org, organiser = await _organiser(factory)
    await create_event(client, organiser.headers, org.id, typeEvenement="FORMATION", visibilite="MEMBRES")
    await create_event(client, organiser.headers, org.id, typeEvenement="REUNION", visibilite="MEMBRES")
    by_type = await client.get("/api/evenements/type/FORMATION", headers=organiser.headers)
    assert by_type.status_code == 200
    assert [e["typeEvenement"] for e in by_type.json()["content"]] == ["FORMATION"]
    assert (await client.get("/api/evenements/type/INCONNU", headers=organiser.headers)).status_code == 400
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    count = await client.get("/api/evenements/count", headers=org_admin.headers)
    assert count.status_code == 200 and count.json() == 2
    test = await client.get("/api/evenements/test")
    assert test.status_code == 200 and test.json()["database"] == "UP"


async def test_delete_cancels_registrations_and_notifies(client, factory, db):
    org, organiser = await _organiser(factory)
    evt = await create_event(client, organiser.headers, org.id, capaciteMax=1, listeAttenteActive=True)
    first = await factory.actor(["USER"], organisation=org)
    second = await factory.actor(["USER"], organisation=org)
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions", headers=first.headers)).status_code == 201
    assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions",
                              headers=second.headers)).json()["statut"] == "EN_ATTENTE"
    outsider = (await _organiser(factory))[1]
    assert (await client.delete(f"/api/evenements/{evt['id']}", headers=first.headers)).status_code == 403
    assert (await client.delete(f"/api/evenements/{evt['id']}", headers=outsider.headers)).status_code == 403
    assert (await client.delete(f"/api/evenements/{uuid.uuid4()}", headers=organiser.headers)).status_code == 404
    gone = await client.request("DELETE", f"/api/evenements/{evt['id']}", headers=organiser.headers,
                                json={"motif": "Salle indisponible"})
    assert gone.status_code == 204
    after = (await client.get(f"/api/evenements/{evt['id']}", headers=organiser.headers)).json()
    assert after["statut"] == "ANNULE" and after["nombreInscrits"] == 0 and after["motifAnnulation"]
    notices = (await db.execute(select(NotificationEvenement).where(
        NotificationEvenement.evenement_id == uuid.UUID(evt["id"])))).scalars().all()
    assert {n.membre_id for n in notices} == {first.membre.id, second.membre.id}
    assert all(n.type_notification == "EVENEMENT_ANNULE" and "Salle indisponible" in n.message for n in notices)
    mine = (await client.get("/api/evenements/mes-inscriptions", headers=first.headers)).json()
    assert [i["statut"] for i in mine] == ["ANNULEE"]
    assert (await client.delete(f"/api/evenements/{evt['id']}", headers=organiser.headers)).status_code == 400
    assert (await client.put(f"/api/evenements/{evt['id']}", headers=organiser.headers,
                             json=event_body(org.id))).status_code == 400


async def test_statistics(client, factory, db):
    org, organiser = await _organiser(factory)
    a = await create_event(client, organiser.headers, org.id, capaciteMax=4, typeEvenement="FORMATION")
    await create_event(client, organiser.headers, org.id, capaciteMax=None, typeEvenement="REUNION")
    member = await factory.actor(["USER"], organisation=org)
    await client.post(f"/api/evenements/{a['id']}/inscriptions", headers=member.headers)
    stats = await client.get("/api/evenements/statistiques", headers=organiser.headers)
    assert stats.status_code == 200
    body = stats.json()
    assert body["total"] == 2 and body["parStatut"]["PLANIFIE"] == 2 and body["parType"] == {
        "FORMATION": 1, "REUNION": 1}
    assert body["inscriptions"]["confirmees"] == 1 and body["capaciteTotale"] == 4
    assert body["tauxRemplissage"] == "25.00" and body["nombreFeedbacks"] == 0


async def test_public_list_needs_no_token_and_checks_paging(client, factory):
    org, organiser = await _organiser(factory)
    await create_event(client, organiser.headers, org.id, titre="Journée de dépistage gratuite")
    response = await client.get("/api/evenements/publics", params={"size": 1})
    assert response.status_code == 200
    page = response.json()
    assert page["size"] == 1 and len(page["content"]) == 1 and page["content"][0]["visibilite"] == "PUBLIC"
    assert (await client.get("/api/evenements/publics")).json()["size"] == 20
    assert (await client.get("/api/evenements/publics", params={"size": 0})).status_code == 400
    assert (await client.get("/api/evenements/publics", params={"page": -1})).status_code == 400
    assert (await client.get("/api/evenements")).status_code == 401


async def test_unknown_event_is_404_everywhere_and_paging_is_checked(client, factory):
    org, organiser = await _organiser(factory)
    admin = await factory.actor(["ADMIN"], organisation=org)
    missing = uuid.uuid4()
    for method, path, body in (
        ("GET", f"/api/evenements/{missing}", None),
        ("PUT", f"/api/evenements/{missing}", event_body(org.id)),
        ("DELETE", f"/api/evenements/{missing}", None),
        ("POST", f"/api/evenements/{missing}/confirmer", None),
        ("POST", f"/api/evenements/{missing}/inscriptions", None),
        ("DELETE", f"/api/evenements/{missing}/inscriptions", None),
        ("GET", f"/api/evenements/{missing}/participants", None),
        ("GET", f"/api/evenements/{missing}/feedbacks", None),
        ("GET", f"/api/evenements/{missing}/feedbacks/moderation", None),
        ("PUT", f"/api/evenements/{missing}/feedbacks/{uuid.uuid4()}/moderation", {"statut": "PUBLIE"}),
    ):
        response = await client.request(method, path, headers=admin.headers, json=body)
        assert response.status_code == 404, (method, path, response.text)
    for path in ("/api/evenements/a-venir", "/api/evenements/recherche", "/api/evenements/type/REUNION"):
        assert (await client.get(path, params={"size": 0}, headers=organiser.headers)).status_code == 400
        assert (await client.get(path, params={"page": -1}, headers=organiser.headers)).status_code == 400
        assert (await client.get(path, headers=organiser.headers)).json()["page"] == 0
    assert (await client.get("/api/evenements/not-a-uuid", headers=organiser.headers)).status_code == 400
