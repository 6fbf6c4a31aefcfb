"""Monitoring tests' tools (not builders): the alert settings, the alerts read back, an evaluation made old
and the open alerts counted in the live tables the evaluator measures."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import AlerteConfig, AlerteSysteme


async def set_config(client: httpx.AsyncClient, headers: dict[str, str], **values: Any) -> dict[str, Any]:
    response = await client.put("/api/alerts/config", headers=headers, json=values)
    assert response.status_code == 200, response.text
    return dict(response.json())


async def alerts_by_code(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, dict[str, Any]]:
    response = await client.get("/api/alerts", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["X-Total-Count"] == str(len(response.json()))
    return {a["code"]: a for a in response.json()}


async def expire_evaluation(db: AsyncSession) -> None:
    """Make the stored last evaluation old, as if the interval had elapsed."""
    await db.execute(update(AlerteConfig).values(derniere_evaluation=None))


async def open_count(db: AsyncSession, code: str) -> int:
    stmt = select(func.count()).select_from(AlerteSysteme).where(AlerteSysteme.code == code,
                                                                 AlerteSysteme.resolue.is_(False))
    return int((await db.execute(stmt)).scalar_one())
