"""Documents attach to tickets (type TICKET): the documents area resolves the target by the table "ticket"."""

from __future__ import annotations

from tests.documents.fichiers import PDF_BYTES
from tests.factories.documents import upload
from tests.factories.tickets import open_ticket


async def test_requester_attaches_a_file_that_the_ticket_staff_can_read(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    neighbour = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    ticket = await open_ticket(client, member, org.id)
    doc = (await upload(client, member.headers, PDF_BYTES, filename="capture-wave.pdf")).json()

    # Before the attachment the staff cannot see the member's private document.
    assert (await client.get(f"/api/documents/{doc['id']}", headers=staff.headers)).status_code == 404
    attached = await client.post("/api/documents/pieces-jointes", headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "TICKET", "entiteId": ticket["id"], "libelle": "Capture"})
    assert attached.status_code in (200, 201), attached.text
    assert attached.json()["organisationId"] == str(org.id)
    assert (await client.get(f"/api/documents/{doc['id']}", headers=staff.headers)).status_code == 200
    listed = await client.get(f"/api/documents/{doc['id']}/pieces-jointes", headers=staff.headers)
    assert [(p["typeEntite"], p["entiteId"]) for p in listed.json()] == [("TICKET", ticket["id"])]

    # Someone else's ticket is out of reach: 404, whatever the document.
    other_doc = (await upload(client, neighbour.headers, PDF_BYTES, filename="autre.pdf")).json()
    foreign = await client.post("/api/documents/pieces-jointes", headers=neighbour.headers, json={
        "documentId": other_doc["id"], "typeEntite": "TICKET", "entiteId": ticket["id"]})
    assert foreign.status_code == 404
