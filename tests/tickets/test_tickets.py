from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta

from sqlalchemy import select, update

from tests.factories.tickets import open_ticket
from unionflow.models import AuditLog, Ticket
from unionflow.models.base import utcnow


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def test_member_opens_ticket_with_number_sla_and_audit(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    first = await open_ticket(client, member, org.id, priorite="URGENTE")
    second = await open_ticket(client, member, org.id)
    assert re.fullmatch(r"TCK-\d{4}-\d{6}", first["numero"])
    assert int(second["numero"][-6:]) == int(first["numero"][-6:]) + 1
    assert first["statut"] == "OUVERT" and first["destinataire"] == "ORGANISATION"
    assert first["organisationId"] == str(org.id) and first["membreId"] == str(member.membre.id)
    created = _dt(first["createdAt"])
    assert _dt(first["echeancePremiereReponse"]) - created == timedelta(hours=4)
    assert _dt(first["echeanceResolution"]) - created == timedelta(days=1)
    assert _dt(second["echeancePremiereReponse"]) - _dt(second["createdAt"]) == timedelta(hours=24)
    assert first["slaPremiereReponseDepasse"] is False and first["reouvrableJusquAu"] is None
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == first["id"]))).scalar_one()
    assert entry.type_action == "CREER" and entry.module == "TICKETS"


async def test_creation_rules(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    body = {"sujet": "Question", "description": "Bonjour, une question."}
    not_member = await client.post("/api/tickets", headers=member.headers,
                                   json={**body, "organisationId": str(other.id)})
    assert not_member.status_code == 400
    missing = await client.post("/api/tickets", headers=member.headers,
                                json={**body, "organisationId": str(uuid.uuid4())})
    assert missing.status_code == 404
    server_field = await client.post("/api/tickets", headers=member.headers,
                                     json={**body, "organisationId": str(org.id), "statut": "RESOLU"})
    assert server_field.status_code == 400 and server_field.json()["errors"][0]["field"] == "statut"
    bad_priority = await client.post("/api/tickets", headers=member.headers,
                                     json={**body, "organisationId": str(org.id), "priorite": "CRITIQUE"})
    assert bad_priority.status_code == 400
    no_record = await factory.actor(["USER"], with_membre=False)
    assert (await client.post("/api/tickets", headers=no_record.headers,
                              json={**body, "organisationId": str(org.id)})).status_code == 400
    assert (await client.post("/api/tickets", json={**body, "organisationId": str(org.id)})).status_code == 401


async def test_ticket_to_the_union_goes_to_union_staff(client, factory):
    union = await factory.organisation(type_organisation="UNION")
    fed = await factory.organisation(type_organisation="FEDERATION", parent_id=union.id)
    org = await factory.organisation(parent_id=fed.id)
    member = await factory.actor(["USER"], organisation=org)
    org_staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    union_staff = await factory.actor(["USER"], organisation=union, org_roles=["ADMIN_ORGANISATION"])
    ticket = await open_ticket(client, member, org.id, destinataire="UNION")
    assert ticket["organisationId"] == str(union.id) and ticket["organisationOrigineId"] == str(org.id)
    assert (await client.get(f"/api/tickets/{ticket['id']}", headers=union_staff.headers)).status_code == 200
    assert (await client.get(f"/api/tickets/{ticket['id']}", headers=org_staff.headers)).status_code == 404

    orphan = await factory.organisation()
    lonely = await factory.actor(["USER"], organisation=orphan)
    response = await client.post("/api/tickets", headers=lonely.headers, json={
        "organisationId": str(orphan.id), "destinataire": "UNION", "sujet": "Union ?", "description": "Bonjour"})
    assert response.status_code == 400


async def test_visibility_requester_staff_admin_others(client, factory):
    org = await factory.organisation()
    other_org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    neighbour = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    foreign_staff = await factory.actor(["USER"], organisation=other_org, org_roles=["ADMIN_ORGANISATION"])
    admin = await factory.actor(["ADMIN"], with_membre=False)
    ticket = await open_ticket(client, member, org.id)
    url = f"/api/tickets/{ticket['id']}"
    for actor in (member, staff, admin):
        assert (await client.get(url, headers=actor.headers)).status_code == 200
    for actor in (neighbour, foreign_staff):
        assert (await client.get(url, headers=actor.headers)).status_code == 404
        assert (await client.get(url + "/messages", headers=actor.headers)).status_code == 404
        assert (await client.post(url + "/messages", headers=actor.headers,
                                  json={"contenu": "Je m'invite"})).status_code == 404
    assert (await client.get(f"/api/tickets/{uuid.uuid4()}", headers=admin.headers)).status_code == 404

    mine = await client.get("/api/tickets/mes-tickets", headers=member.headers)
    assert [t["id"] for t in mine.json()["content"]] == [ticket["id"]]
    assert (await client.get("/api/tickets/mes-tickets", headers=neighbour.headers)).json()["totalElements"] == 0
    # The queue is for staff: a plain member is refused by role, foreign staff see nothing of this organisation.
    assert (await client.get("/api/tickets", headers=member.headers)).status_code == 403
    foreign = await client.get("/api/tickets", headers=foreign_staff.headers)
    assert ticket["id"] not in [t["id"] for t in foreign.json()["content"]]
    queue = (await client.get("/api/tickets", headers=staff.headers)).json()["content"]
    assert ticket["id"] in [t["id"] for t in queue]


async def test_thread_internal_notes_and_first_response(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ticket = await open_ticket(client, member, org.id)
    url = f"/api/tickets/{ticket['id']}/messages"
    note = await client.post(url, headers=staff.headers, json={"contenu": "Vérifier le relevé Wave", "interne": True})
    assert note.status_code == 201 and note.json()["interne"] is True
    after_note = (await client.get(f"/api/tickets/{ticket['id']}", headers=staff.headers)).json()
    # An internal note is not a response to the member: the ticket stays OUVERT and the SLA clock runs.
    assert after_note["statut"] == "OUVERT" and after_note["datePremiereReponse"] is None
    forbidden = await client.post(url, headers=member.headers, json={"contenu": "note", "interne": True})
    assert forbidden.status_code == 403
    reply = await client.post(url, headers=staff.headers, json={"contenu": "Nous regardons votre paiement."})
    assert reply.status_code == 201 and reply.json()["parEquipe"] is True
    follow = await client.post(url, headers=member.headers, json={"contenu": "Merci !"})
    assert follow.json()["parEquipe"] is False
    assert reply.json()["auteurNom"] == f"{staff.membre.prenom} {staff.membre.nom}"
    current = (await client.get(f"/api/tickets/{ticket['id']}", headers=member.headers)).json()
    assert current["statut"] == "EN_COURS" and current["datePremiereReponse"] is not None

    as_member = (await client.get(url, headers=member.headers)).json()
    as_staff = (await client.get(url, headers=staff.headers)).json()
    assert [m["contenu"] for m in as_member] == ["Nous regardons votre paiement.", "Merci !"]
    assert [m["contenu"] for m in as_staff] == ["Vérifier le relevé Wave", "Nous regardons votre paiement.",
                                                 "Merci !"]


async def test_workflow_resolve_reopen_window_and_close(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    ticket = await open_ticket(client, member, org.id)
    status_url = f"/api/tickets/{ticket['id']}/statut"

    assert (await client.post(status_url, headers=member.headers, json={"statut": "EN_COURS"})).status_code == 403
    assert (await client.post(status_url, headers=staff.headers, json={"statut": "OUVERT"})).status_code == 400
    taken = await client.post(status_url, headers=staff.headers, json={"statut": "EN_COURS"})
    assert taken.json()["statut"] == "EN_COURS"
    assert (await client.post(status_url, headers=member.headers,
                              json={"statut": "RESOLU", "commentaire": "Réglé"})).status_code == 403
    assert (await client.post(status_url, headers=staff.headers, json={"statut": "RESOLU"})).status_code == 400
    resolved = await client.post(status_url, headers=staff.headers,
                                 json={"statut": "RESOLU", "commentaire": "Reçu renvoyé par e-mail."})
    body = resolved.json()
    assert body["statut"] == "RESOLU" and body["resolution"] == "Reçu renvoyé par e-mail."
    assert _dt(body["reouvrableJusquAu"]) - _dt(body["dateResolution"]) == timedelta(days=7)
    assert body["datePremiereReponse"] is not None  # the resolution comment is a public staff reply

    assert (await client.post(status_url, headers=member.headers, json={"statut": "EN_COURS"})).status_code == 400
    reopened = await client.post(status_url, headers=member.headers,
                                 json={"statut": "EN_COURS", "commentaire": "Toujours pas reçu."})
    assert reopened.json()["statut"] == "EN_COURS" and reopened.json()["nombreReouvertures"] == 1
    assert reopened.json()["resolution"] is None

    await client.post(status_url, headers=staff.headers, json={"statut": "RESOLU", "commentaire": "Renvoyé."})
    await db.execute(update(Ticket).where(Ticket.id == uuid.UUID(ticket["id"]))
                     .values(date_resolution=utcnow() - timedelta(days=8)))
    late = await client.post(status_url, headers=member.headers,
                             json={"statut": "EN_COURS", "commentaire": "Encore un souci"})
    assert late.status_code == 400 and "7 jours" in late.json()["detail"]

    closed = await client.post(status_url, headers=member.headers, json={"statut": "FERME"})
    assert closed.json()["statut"] == "FERME" and closed.json()["dateFermeture"] is not None
    assert (await client.post(status_url, headers=staff.headers,
                              json={"statut": "EN_COURS", "commentaire": "x"})).status_code == 400
    assert (await client.post(f"/api/tickets/{ticket['id']}/messages", headers=member.headers,
                              json={"contenu": "Encore moi"})).status_code == 400
    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == ticket["id"]))).scalars())
    assert {"CREER", "STATUT_EN_COURS", "STATUT_RESOLU", "STATUT_FERME"} <= actions


async def test_staff_closing_unresolved_ticket_needs_a_reason_requester_may_withdraw(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    first = await open_ticket(client, member, org.id)
    url = f"/api/tickets/{first['id']}/statut"
    assert (await client.post(url, headers=staff.headers, json={"statut": "FERME"})).status_code == 400
    doublon = await client.post(url, headers=staff.headers, json={"statut": "FERME", "commentaire": "Doublon"})
    assert doublon.json()["statut"] == "FERME"
    second = await open_ticket(client, member, org.id)
    withdrawn = await client.post(f"/api/tickets/{second['id']}/statut", headers=member.headers,
                                  json={"statut": "FERME"})
    assert withdrawn.status_code == 200 and withdrawn.json()["statut"] == "FERME"


async def test_assignment_to_staff_members_only_and_queue_filters(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    ticket = await open_ticket(client, member, org.id)
    other = await open_ticket(client, member, org.id, priorite="BASSE")
    url = f"/api/tickets/{ticket['id']}/assignation"
    plain = await client.put(url, headers=staff.headers, json={"membreId": str(member.membre.id)})
    assert plain.status_code == 400
    assert (await client.put(url, headers=member.headers,
                             json={"membreId": str(staff.membre.id)})).status_code == 403
    assigned = await client.put(url, headers=staff.headers, json={"membreId": str(staff.membre.id)})
    assert assigned.status_code == 200 and assigned.json()["assigneMembreId"] == str(staff.membre.id)
    again = await client.put(url, headers=staff.headers, json={"membreId": str(staff.membre.id)})
    assert again.status_code == 400

    mine = await client.get("/api/tickets", headers=staff.headers,
                            params={"assigneMembreId": str(staff.membre.id)})
    assert [t["id"] for t in mine.json()["content"]] == [ticket["id"]]
    unassigned = await client.get("/api/tickets", headers=staff.headers, params={"nonAssigne": "true"})
    assert [t["id"] for t in unassigned.json()["content"]] == [other["id"]]
    released = await client.put(url, headers=staff.headers, json={"membreId": None})
    assert released.json()["assigneMembreId"] is None and released.json()["dateAssignation"] is None


async def test_queue_orders_by_priority_pages_and_flags_sla(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    basse = await open_ticket(client, member, org.id, priorite="BASSE")
    urgente = await open_ticket(client, member, org.id, priorite="URGENTE", sujet="Compte bloqué")
    haute = await open_ticket(client, member, org.id, priorite="HAUTE")
    queue = await client.get("/api/tickets", headers=staff.headers, params={"size": 2})
    page = queue.json()
    assert [t["id"] for t in page["content"]] == [urgente["id"], haute["id"]]
    assert page["totalElements"] == 3 and page["totalPages"] == 2
    by_date = await client.get("/api/tickets", headers=staff.headers, params={"tri": "DATE"})
    assert [t["id"] for t in by_date.json()["content"]] == [haute["id"], urgente["id"], basse["id"]]
    assert (await client.get("/api/tickets", headers=staff.headers, params={"size": 0})).status_code == 400
    assert (await client.get("/api/tickets", headers=staff.headers, params={"statut": "X"})).status_code == 400
    search = await client.get("/api/tickets", headers=staff.headers, params={"q": "bloqué"})
    assert [t["id"] for t in search.json()["content"]] == [urgente["id"]]

    await db.execute(update(Ticket).where(Ticket.id == uuid.UUID(urgente["id"]))
                     .values(echeance_premiere_reponse=utcnow() - timedelta(minutes=5)))
    late = await client.get("/api/tickets", headers=staff.headers, params={"slaDepasse": "true"})
    assert [t["id"] for t in late.json()["content"]] == [urgente["id"]]
    assert late.json()["content"][0]["slaPremiereReponseDepasse"] is True


async def test_update_rules_and_priority_recomputes_deadlines(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    ticket = await open_ticket(client, member, org.id)
    url = f"/api/tickets/{ticket['id']}"
    edited = await client.put(url, headers=member.headers, json={"sujet": "Reçu manquant (mai)"})
    assert edited.status_code == 200 and edited.json()["sujet"] == "Reçu manquant (mai)"
    assert (await client.put(url, headers=member.headers, json={"sujet": None})).status_code == 400
    assert (await client.put(url, headers=staff.headers, json={"description": "Réécrit"})).status_code == 403
    raised = await client.put(url, headers=staff.headers, json={"priorite": "HAUTE"})
    assert _dt(raised.json()["echeancePremiereReponse"]) - _dt(raised.json()["createdAt"]) == timedelta(hours=8)
    await client.post(url + "/statut", headers=staff.headers, json={"statut": "EN_COURS"})
    assert (await client.put(url, headers=member.headers, json={"priorite": "URGENTE"})).status_code == 400
    assert (await client.put(url, headers=staff.headers, json={"categorie": "PAIEMENT"})).json()[
        "categorie"] == "PAIEMENT"
