"""Conversations and messages through the API."""

from __future__ import annotations

from typing import Any

import httpx


async def conversation(client: httpx.AsyncClient, actor: Any, organisation_id: Any, *others: Any,
                       **values: Any) -> httpx.Response:
    body = {"organisationId": str(organisation_id), "participantIds": [str(o.membre.id) for o in others], **values}
    return await client.post("/api/messagerie/conversations", headers=actor.headers, json=body)


async def send(client: httpx.AsyncClient, actor: Any, conversation_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/api/messagerie/conversations/{conversation_id}/messages", headers=actor.headers,
                             json=body)
