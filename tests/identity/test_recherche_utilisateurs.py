"""Issue 20, item 8: the built-in provider's accounts list (``search``) ignores accents and case on both back
ends (models/texte.py, migration 0022_recherche_listes)."""

from __future__ import annotations

import uuid


async def test_accounts_are_found_whatever_the_accents_and_case(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    tag = uuid.uuid4().hex[:6]
    created = await client.post("/api/admin/users", headers=sa.headers, json={
        "username": f"elodie.{tag}@example.sn", "email": f"elodie.{tag}@example.sn", "firstName": "Élodie",
        "lastName": f"Sèye{tag}", "enabled": True})
    assert created.status_code == 200, created.text
    for search in (f"élodie sèye{tag}", f"ELODIE SEYE{tag}", f"seye{tag}", f"Sèye{tag.upper()}"):
        page = await client.get("/api/admin/users", headers=sa.headers, params={"search": search})
        assert page.status_code == 200, page.text
        assert [u["id"] for u in page.json()["content"]] == [created.json()["id"]], search
