"""Events through the API: a creation body and a created event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx


def iso(dt: datetime) -> str:
    return dt.isoformat()


def event_body(organisation_id: Any = None, *, days: int = 10, hours: int = 3, **values: Any) -> dict[str, Any]:
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=days)
    body: dict[str, Any] = {
        "titre": "Assemblée générale annuelle", "description": "Bilan et élection du bureau",
        "typeEvenement": "ASSEMBLEE_GENERALE", "dateDebut": iso(start), "dateFin": iso(start + timedelta(hours=hours)),
        "lieu": "Maison des jeunes de Thiès", "adresse": "Avenue Léopold Senghor", "capaciteMax": 50,
        "prix": "1500.00", "inscriptionRequise": True, "visibilite": "PUBLIC",
    }
    if organisation_id is not None:
        body["organisationId"] = str(organisation_id)
    body.update(values)
    return body


async def create_event(client: httpx.AsyncClient, headers: dict[str, str], organisation_id: Any = None,
                       **values: Any) -> dict[str, Any]:
    response = await client.post("/api/evenements", headers=headers, json=event_body(organisation_id, **values))
    assert response.status_code == 201, response.text
    return response.json()
