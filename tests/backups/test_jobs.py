"""The scheduled job, called as cron calls it (own engine, own commits), on a throwaway database."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from tests.backups.conftest import Throwaway
from tests.conftest import BACKEND
from unionflow.backups.jobs import sauvegarder
from unionflow.models import Sauvegarde


async def _rows(t: Throwaway) -> dict[str, Sauvegarde]:
    async with t.app.state.sessionmaker() as session:
        return {str(b.id): b for b in (await session.execute(select(Sauvegarde))).scalars()}


async def _age(t: Throwaway, backup_id: str, days: int) -> None:
    async with t.app.state.sessionmaker() as session:
        await session.execute(update(Sauvegarde).where(Sauvegarde.id == uuid.UUID(backup_id))
                              .values(date_creation=datetime.now(UTC) - timedelta(days=days)))
        await session.commit()


async def test_schedule_due_backup_and_retention(throwaway: Throwaway):
    t = throwaway
    admin = await t.admin()
    lines: list[str] = []
    assert await sauvegarder(t.settings, out=lines.append) == 0
    assert lines[0] == "aucune sauvegarde due" and await _rows(t) == {}, "inactive schedule: nothing"

    config = await t.client.put("/api/backups/config", headers=admin.headers, json={"actif": True, "retentionJours": 7})
    assert config.status_code == 200
    assert await sauvegarder(t.settings, out=lines.append) == 0
    first = next(iter((await _rows(t)).values()))
    assert first.type == "AUTOMATIQUE" and first.statut == "TERMINEE" and first.cree_par == "systeme"
    assert await sauvegarder(t.settings, out=lines.append) == 0
    assert len(await _rows(t)) == 1, "already done for this slot"

    point = (await t.client.post("/api/backups/restore-point", headers=admin.headers)).json()
    manual = (await t.client.post("/api/backups", headers=admin.headers)).json()
    for backup_id in (str(first.id), point["id"], manual["id"]):
        await _age(t, backup_id, 10)
    files = {b: Path(t.settings.data_dir) / "backups" / (await _rows(t))[b].fichier
             for b in (str(first.id), point["id"], manual["id"])}
    assert await sauvegarder(t.settings, out=lines.append) == 0, "the last automatic backup is old: due again"
    rows = await _rows(t)
    assert rows[str(first.id)].statut == "SUPPRIMEE" and not files[str(first.id)].exists()
    assert rows[point["id"]].statut == "SUPPRIMEE" and not files[point["id"]].exists()
    assert rows[manual["id"]].statut == "TERMINEE" and files[manual["id"]].exists(), "manual backups are kept"
    newest = [b for b in rows.values() if b.type == "AUTOMATIQUE" and b.statut == "TERMINEE"]
    assert len(newest) == 1

    # However old, the last good automatic backup is never pruned.
    await t.client.put("/api/backups/config", headers=admin.headers, json={"actif": False})
    await _age(t, str(newest[0].id), 30)
    assert await sauvegarder(t.settings, out=lines.append) == 0
    assert (await _rows(t))[str(newest[0].id)].statut == "TERMINEE"


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_cli_jobs(tmp_path):
    db = tmp_path / "cli.db"
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{db}", "UNIONFLOW_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(Path(__file__).parents[2] / "src")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, capture_output=True,
                              text=True, timeout=300, cwd=Path(__file__).parents[2])

    assert run("migrate").returncode == 0
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE alerte_config SET seuil_espace_disque_libre_pourcent = 100")
        conn.commit()
    watch = run("jobs", "surveiller")
    assert watch.returncode in (1, 2), watch.stderr
    assert "ESPACE_DISQUE_FAIBLE" in watch.stdout

    forced = run("jobs", "sauvegarder", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "TERMINEE" in forced.stdout
    assert len(list((tmp_path / "data" / "backups").glob("*.db"))) == 1
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT type, statut FROM sauvegarde").fetchall() == [("AUTOMATIQUE", "TERMINEE")]
        assert conn.execute("SELECT count(*) FROM alerte_systeme WHERE resolue = 0").fetchone()[0] >= 1

    unreachable = {**env, "UNIONFLOW_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    down = subprocess.run([sys.executable, "-m", "unionflow.cli", "jobs", "surveiller"], env=unreachable,
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[2])
    assert down.returncode == 2 and "BASE_DONNEES_INDISPONIBLE" in down.stderr
