"""``unionflow jobs envoyer-notifications`` as operators run it: a subprocess configured by environment."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from tests.conftest import BACKEND
from tests.notifications.serveurs import smtp_server
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.models import Membre, MembreOrganisation, Notification, Organisation

ROOT = Path(__file__).parents[2]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


async def _seed(url: str) -> str:
    engine = create_engine(Settings(database_url=url))
    try:
        async with create_sessionmaker(engine)() as session:
            org = Organisation(nom="Mutuelle des enseignants de Kaolack", type_organisation="MUTUELLE",
                               statut="ACTIVE", pays="SN", devise="XOF")
            membre = Membre(numero_membre="MBR-CLI-1", prenom="Ibrahima", nom="Ndiaye", email="ibrahima@example.sn",
                            statut="ACTIF")
            session.add_all([org, membre])
            await session.flush()
            session.add(MembreOrganisation(membre_id=membre.id, organisation_id=org.id, date_debut=date.today()))
            row = Notification(membre_id=membre.id, organisation_id=org.id, type_notification="INFORMATION",
                               canal="EMAIL", adresse=membre.email, sujet="Bienvenue", corps="Bienvenue à la mutuelle",
                               statut="EN_ATTENTE", tentatives=0)
            session.add(row)
            await session.commit()
            return str(row.id)
    finally:
        await engine.dispose()


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_job_delivers_pending_emails(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": url, "PYTHONPATH": str(ROOT / "src")}
    assert _run(["migrate"], env).returncode == 0
    notification_id = asyncio.run(_seed(url))
    with smtp_server() as (mailbox, port):
        env.update(UNIONFLOW_SMTP_HOST="127.0.0.1", UNIONFLOW_SMTP_PORT=str(port), UNIONFLOW_SMTP_STARTTLS="false")
        done = _run(["jobs", "envoyer-notifications"], env)
    assert done.returncode == 0, done.stderr
    assert "1 notification(s) envoyée(s), 0 reportée(s), 0 échouée(s)" in done.stdout
    assert mailbox.ids() == [notification_id] and mailbox.recipients == [["ibrahima@example.sn"]]
    again = _run(["jobs", "envoyer-notifications"], env)
    assert "0 notification(s) envoyée(s)" in again.stdout
