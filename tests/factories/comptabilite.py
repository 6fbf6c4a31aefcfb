"""The books through the API: accounts, journals, an entry's body, and posting it (approved when it touches money)."""

from __future__ import annotations

import uuid
from typing import Any

from unionflow.models import Organisation


async def compte(client: Any, headers: dict[str, str], org_id: uuid.UUID, numero: str, libelle: str) -> dict[str, Any]:
    response = await client.post("/api/comptabilite/comptes", headers=headers, json={
        "organisationId": str(org_id), "numeroCompte": numero, "libelle": libelle})
    assert response.status_code == 200, response.text
    return response.json()


async def journal(client: Any, headers: dict[str, str], org_id: uuid.UUID, code: str = "BQ",
                  type_: str = "BANQUE") -> dict[str, Any]:
    response = await client.post("/api/comptabilite/journaux", headers=headers, json={
        "organisationId": str(org_id), "code": code, "libelle": f"Journal {code}", "type": type_})
    assert response.status_code == 200, response.text
    return response.json()


def ecriture(journal_id: str, lignes: list[tuple[str, str, str]], day: str = "2026-03-15") -> dict[str, Any]:
    return {"journalId": journal_id, "dateEcriture": day, "libelle": "Pièce test", "pieceReference": "PJ-1",
            "lignes": [{"compteId": c, "debit": d, "credit": k} for c, d, k in lignes]}


async def passer(client: Any, factory: Any, org: Organisation, headers: dict[str, str],
                 body: dict[str, Any]) -> Any:
    """Post an entry through the spec route. One that touches money (class 5, 4191, a controlled account) is a
    request (202): a president of the organisation approves it, and the booked entry is returned as an
    uncontrolled entry's 200 would be (saisies/)."""
    response = await client.post("/api/comptabilite/ecritures", headers=headers, json=body)
    if response.status_code != 202:
        return response
    approbateurs = factory.__dict__.setdefault("approbateurs", {})
    if org.id not in approbateurs:
        approbateurs[org.id] = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    decided = await client.post(f"/api/comptabilite/demandes-ecritures/{response.json()['id']}/approuver",
                                headers=approbateurs[org.id].headers, json={})
    if decided.status_code != 200:
        return decided
    return await client.get(f"/api/comptabilite/ecritures/{decided.json()['ecritureId']}", headers=headers)
