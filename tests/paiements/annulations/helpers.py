"""Undoing money takes two people (issue 19): the request, then the approval by someone else."""

from __future__ import annotations

from typing import Any


async def defaire(client: Any, path: str, demandeur: Any, approbateur: Any, motif: str = "Erreur de saisie") -> Any:
    """POST the spec's undo route as ``demandeur`` (202, pending), then approve it as ``approbateur``; returns the
    approval's response (the request, APPROUVEE, carried out)."""
    demande = await client.post(path, headers=demandeur.headers, json={"motif": motif})
    assert demande.status_code == 202, demande.text
    assert demande.json()["statut"] == "EN_ATTENTE"
    return await client.post(f"/api/annulations/{demande.json()['id']}/approuver", headers=approbateur.headers,
                             json={})


async def notifications(client: Any, actor: Any) -> list[dict[str, Any]]:
    """What the member reads in his own notifications (GET /api/notifications/mes)."""
    response = await client.get("/api/notifications/mes?size=100", headers=actor.headers)
    assert response.status_code == 200, response.text
    return list(response.json()["content"])
