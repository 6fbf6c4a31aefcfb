"""What a member reads in his own notifications."""

from __future__ import annotations

from typing import Any


async def notifications(client: Any, actor: Any) -> list[dict[str, Any]]:
    """What the member reads in his own notifications (GET /api/notifications/mes)."""
    response = await client.get("/api/notifications/mes?size=100", headers=actor.headers)
    assert response.status_code == 200, response.text
    return list(response.json()["content"])
