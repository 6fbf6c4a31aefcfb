from __future__ import annotations

import pytest
from sqlalchemy import select, text

from tests.backups.conftest import Throwaway
from unionflow.backups import engine
from unionflow.models import AuditLog


async def _org(t: Throwaway, headers: dict[str, str], nom: str) -> str:
    response = await t.client.post("/api/organisations", headers=headers,
                                   json={"nom": nom, "typeOrganisation": "ASSOCIATION"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_restore_brings_the_database_back_and_keeps_catalogue_and_audit(throwaway: Throwaway):
    t = throwaway
    admin = await t.admin()
    before = await _org(t, admin.headers, "Mutuelle d'avant")
    backup = (await t.client.post("/api/backups", headers=admin.headers, json={"nom": "Avant clôture"})).json()
    assert backup["statut"] == "TERMINEE", backup
    after = await _org(t, admin.headers, "Tontine d'après")

    wrong = await t.client.post("/api/backups/restore", headers=admin.headers,
                                json={"backupId": backup["id"], "confirmation": "oui"})
    assert wrong.status_code == 400
    assert (await t.client.get(f"/api/organisations/{after}", headers=admin.headers)).status_code == 200

    restored = await t.client.post("/api/backups/restore", headers=admin.headers,
                                   json={"backupId": backup["id"], "confirmation": "RESTAURER"})
    assert restored.status_code == 200, restored.text
    body = restored.json()
    assert body["statut"] == "TERMINEE", body
    point = body["pointRestauration"]
    assert point["type"] == "POINT_RESTAURATION" and point["statut"] == "TERMINEE"
    assert body["sauvegarde"]["dateDerniereRestauration"]

    # Data written after the backup is gone; data before it is there.
    assert (await t.client.get(f"/api/organisations/{after}", headers=admin.headers)).status_code == 404
    assert (await t.client.get(f"/api/organisations/{before}", headers=admin.headers)).status_code == 200
    # The catalogue survived: the backup (no longer EN_COURS as in its own file) and the restore point.
    listing = {b["id"]: b for b in (await t.client.get("/api/backups", headers=admin.headers)).json()}
    assert listing[backup["id"]]["statut"] == "TERMINEE" and listing[point["id"]]["statut"] == "TERMINEE"
    # The audit trail survived too: the creation of the vanished organisation is still on record.
    async with t.app.state.sessionmaker() as session:
        entries = (await session.execute(select(AuditLog))).scalars().all()
    assert any(e.type_action == "CREER" and e.entite_id == after for e in entries)
    critical = [e for e in entries if e.type_action == "RESTAURER"]
    assert len(critical) == 1 and critical[0].severite == "CRITICAL" and critical[0].entite_id == backup["id"]

    # The restore point holds the state just before the restore: restoring it brings the organisation back.
    undo = await t.client.post("/api/backups/restore", headers=admin.headers,
                               json={"backupId": point["id"], "confirmation": "RESTAURER"})
    assert undo.status_code == 200 and undo.json()["statut"] == "TERMINEE", undo.text
    assert (await t.client.get(f"/api/organisations/{after}", headers=admin.headers)).status_code == 200
    assert len((await t.client.get("/api/backups", headers=admin.headers)).json()) == 3


@pytest.mark.postgresql_only
async def test_failed_restore_leaves_the_database_unchanged(throwaway: Throwaway, monkeypatch):
    t = throwaway
    admin = await t.admin()
    backup = (await t.client.post("/api/backups", headers=admin.headers)).json()
    after = await _org(t, admin.headers, "Créée après la sauvegarde")

    monkeypatch.setattr(engine, "RESTORE_LOCK_TIMEOUT_MS", 300)
    # A long transaction elsewhere holds a lock on a table the restore must drop.
    async with t.app.state.engine.connect() as holder:
        await holder.execute(text("SELECT count(*) FROM organisation"))
        response = await t.client.post("/api/backups/restore", headers=admin.headers,
                                       json={"backupId": backup["id"], "confirmation": "RESTAURER"})
        await holder.rollback()
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["statut"] == "ECHOUEE" and "verrou" in body["message"]
    assert body["sauvegarde"]["dateDerniereRestauration"] is None
    # All or nothing: the organisation created after the backup is still there, the restore point is listed.
    assert (await t.client.get(f"/api/organisations/{after}", headers=admin.headers)).status_code == 200
    listing = [b["id"] for b in (await t.client.get("/api/backups", headers=admin.headers)).json()]
    assert body["pointRestauration"]["id"] in listing
    async with t.app.state.sessionmaker() as session:
        failed = (await session.execute(select(AuditLog).where(AuditLog.type_action == "RESTAURATION_ECHEC")))
        assert failed.scalar_one().severite == "CRITICAL"
