"""Notices through the API: a sending body, the bureau that sends."""

from __future__ import annotations

from typing import Any

BASE = "/api/notifications"


def envoi(organisation_id: Any, **values: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"organisationId": str(organisation_id), "sujet": "Assemblée générale",
                            "corps": "Bonjour {prenom}, l'assemblée de {organisation} a lieu samedi."}
    body.update(values)
    return body


async def staff(factory: Any, roles: tuple[str, ...] = ("MEMBRE", "SECRETAIRE")) -> tuple[Any, Any]:
    org = await factory.organisation()
    actor = await factory.actor(["USER"], organisation=org, org_roles=list(roles))
    return org, actor
