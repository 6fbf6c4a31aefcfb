"""Support tickets through the API."""

from __future__ import annotations

from typing import Any

import httpx


async def open_ticket(client: httpx.AsyncClient, actor: Any, organisation_id: Any, **values: Any) -> dict[str, Any]:
    body = {"organisationId": str(organisation_id), "sujet": "Reçu de cotisation introuvable",
            "description": "J'ai payé par Wave mais je ne vois pas le reçu.", "categorie": "COTISATION", **values}
    response = await client.post("/api/tickets", headers=actor.headers, json=body)
    assert response.status_code == 201, response.text
    return response.json()
