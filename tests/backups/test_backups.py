from __future__ import annotations

import hashlib
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.conftest import BACKEND
from unionflow.models import AuditLog


def _file(settings, backup: dict) -> Path:
    extension = ".db" if backup["moteur"] == "sqlite" else ".dump"
    return Path(settings.data_dir) / "backups" / f"{backup['id']}{extension}"


async def test_role_sets_are_the_spec_ones(client, factory):
    user = await factory.actor(["USER"])
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    assert (await client.get("/api/backups")).status_code == 401
    assert (await client.get("/api/backups", headers=user.headers)).status_code == 403
    assert (await client.get("/api/backups", headers=moderator.headers)).status_code == 200
    assert (await client.get("/api/backups/config", headers=moderator.headers)).status_code == 200
    for method, path in (("POST", "/api/backups"), ("POST", "/api/backups/restore-point"),
                         ("POST", "/api/backups/restore"), ("PUT", "/api/backups/config"),
                         ("DELETE", f"/api/backups/{uuid.uuid4()}")):
        response = await client.request(method, path, headers=moderator.headers, json={})
        assert response.status_code == 403, (method, path)


async def test_backup_is_a_real_verified_file_and_is_audited(client, factory, db, settings):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/backups", headers=admin.headers,
                                 json={"nom": "Avant assemblée générale", "description": "clôture 2026"})
    assert response.status_code == 200, response.text
    backup = response.json()
    assert backup["statut"] == "TERMINEE" and backup["type"] == "MANUELLE"
    assert backup["moteur"] == BACKEND and backup["creePar"] == admin.user.email and backup["dateFin"]
    assert "fichier" not in backup and "chemin" not in backup, "the server path is never exposed"

    path = _file(settings, backup)
    content = path.read_bytes()
    assert backup["tailleOctets"] == len(content) > 0
    assert backup["sha256"] == hashlib.sha256(content).hexdigest()
    if BACKEND == "sqlite":
        with closing(sqlite3.connect(path)) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"organisation", "membre", "audit_log", "alembic_version"} <= tables
    else:
        assert content.startswith(b"PGDMP"), "pg_dump custom format"

    listing = await client.get("/api/backups", headers=admin.headers)
    assert backup["id"] in [b["id"] for b in listing.json()]
    assert listing.headers["X-Total-Count"] == str(len(listing.json()))
    assert (await client.get(f"/api/backups/{backup['id']}", headers=admin.headers)).json() == backup
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == backup["id"]))).scalar_one()
    assert entry.type_action == "SAUVEGARDER" and entry.severite == "INFO"


async def test_body_is_optional_and_validated(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    bare = await client.post("/api/backups", headers=admin.headers)
    assert bare.status_code == 200 and bare.json()["nom"].startswith("Sauvegarde manuelle du ")
    assert (await client.post("/api/backups", headers=admin.headers, json={"statut": "TERMINEE"})).status_code == 400
    point = await client.post("/api/backups/restore-point", headers=admin.headers)
    assert point.status_code == 200 and point.json()["type"] == "POINT_RESTAURATION"
    assert point.json()["statut"] == "TERMINEE"


async def test_failed_backup_is_recorded_as_echouee(client, factory, db, settings, tmp_path, monkeypatch):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    (tmp_path / "backups").write_text("not a directory")  # the backups directory cannot be created
    monkeypatch.setattr(settings, "data_dir", tmp_path)
    response = await client.post("/api/backups", headers=admin.headers, json={"nom": "Vouée à l'échec"})
    assert response.status_code == 200
    backup = response.json()
    assert backup["statut"] == "ECHOUEE" and backup["messageErreur"] and backup["sha256"] is None
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == backup["id"]))).scalar_one()
    assert entry.type_action == "SAUVEGARDE_ECHEC" and entry.severite == "ERROR"
    restore = await client.post("/api/backups/restore", headers=admin.headers,
                                json={"backupId": backup["id"], "confirmation": "RESTAURER"})
    assert restore.status_code == 409


@pytest.mark.postgresql_only
async def test_missing_pg_dump_answers_503(client, factory, tmp_path, monkeypatch):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    response = await client.post("/api/backups", headers=admin.headers)
    assert response.status_code == 503 and "pg_dump" in response.json()["detail"]
    assert (await client.get("/api/backups", headers=admin.headers)).json() == [], "no row for a refused backup"


async def test_delete_removes_the_file_and_keeps_history(client, factory, db, settings):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    backup = (await client.post("/api/backups", headers=admin.headers)).json()
    path = _file(settings, backup)
    assert path.exists()
    deleted = await client.delete(f"/api/backups/{backup['id']}", headers=admin.headers)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["statut"] == "SUPPRIMEE" and deleted.json()["supprimePar"] == admin.user.email
    assert not path.exists()
    assert backup["id"] not in [b["id"] for b in (await client.get("/api/backups", headers=admin.headers)).json()]
    assert (await client.get(f"/api/backups/{backup['id']}", headers=admin.headers)).json()["statut"] == "SUPPRIMEE"
    assert (await client.delete(f"/api/backups/{backup['id']}", headers=admin.headers)).status_code == 409
    assert (await client.delete(f"/api/backups/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    restore = await client.post("/api/backups/restore", headers=admin.headers,
                                json={"backupId": backup["id"], "confirmation": "RESTAURER"})
    assert restore.status_code == 409


async def test_restore_checks_confirmation_then_existence_then_integrity(client, factory, settings):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    unknown = str(uuid.uuid4())
    for confirmation in ("restaurer", "", "OUI"):
        response = await client.post("/api/backups/restore", headers=admin.headers,
                                      json={"backupId": unknown, "confirmation": confirmation})
        assert response.status_code == 400, confirmation
    assert (await client.post("/api/backups/restore", headers=admin.headers,
                              json={"backupId": unknown})).status_code == 400
    assert (await client.post("/api/backups/restore", headers=admin.headers,
                              json={"backupId": unknown, "confirmation": "RESTAURER"})).status_code == 404

    backup = (await client.post("/api/backups", headers=admin.headers)).json()
    with _file(settings, backup).open("ab") as handle:
        handle.write(b"tampered")
    tampered = await client.post("/api/backups/restore", headers=admin.headers,
                                 json={"backupId": backup["id"], "confirmation": "RESTAURER"})
    assert tampered.status_code == 409 and "SHA-256" in tampered.json()["detail"]


async def test_schedule_config_partial_update_and_next_run(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    config = (await client.get("/api/backups/config", headers=admin.headers)).json()
    assert config["actif"] is False and config["frequence"] == "QUOTIDIENNE" and config["heure"] == "02:00"
    assert config["retentionJours"] == 30 and config["prochaineExecution"] is None

    updated = await client.put("/api/backups/config", headers=admin.headers,
                               json={"actif": True, "frequence": "HEBDOMADAIRE", "jourSemaine": 1, "heure": "03:30"})
    assert updated.status_code == 200, updated.text
    body = updated.json()
    assert body["retentionJours"] == 30 and body["modifiePar"] == admin.user.email
    from datetime import datetime

    nxt = datetime.fromisoformat(body["prochaineExecution"])
    assert nxt.isoweekday() == 1 and (nxt.hour, nxt.minute) == (3, 30) and nxt > datetime.now(nxt.tzinfo)

    for bad in ({"heure": "25:00"}, {"frequence": "MENSUELLE"}, {"retentionJours": 0}, {"actif": None}, {}):
        assert (await client.put("/api/backups/config", headers=admin.headers, json=bad)).status_code == 400, bad
    entries = (await db.execute(select(AuditLog).where(AuditLog.entite_type == "SauvegardeConfig"))).scalars().all()
    assert len(entries) == 1
