"""Issue 20, item 8: the tickets queue's free text (number, subject, description) ignores accents and case on
both back ends (models/texte.py, migration 0022_recherche_listes)."""

from __future__ import annotations

import uuid

from tests.factories.tickets import open_ticket


async def test_tickets_are_found_whatever_the_accents_and_case(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    staff = await factory.actor(["USER"], organisation=org, org_roles=["ADMIN_ORGANISATION"])
    tag = uuid.uuid4().hex[:6]
    bloque = await open_ticket(client, member, org.id, sujet=f"Compte BLOQUÉ {tag}")
    other = await open_ticket(client, member, org.id, description=f"Échéance de février {tag}")

    async def ids(q: str) -> list[str]:
        response = await client.get("/api/tickets", headers=staff.headers, params={"q": q})
        assert response.status_code == 200, response.text
        return [t["id"] for t in response.json()["content"]]

    for q in (f"bloqué {tag}", f"bloque {tag}", f"Bloque {tag}", f"{tag} compte"):
        assert await ids(q) == [bloque["id"]], q
    assert await ids(f"echeance FEVRIER {tag}") == [other["id"]]
    assert await ids(bloque["numero"].lower()) == [bloque["id"]]
