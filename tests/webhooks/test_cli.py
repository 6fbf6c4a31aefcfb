"""``unionflow jobs livrer-webhooks`` as operators run it: a subprocess configured by environment."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import BACKEND
from tests.webhooks.recepteur import receiver
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.models import AbonnementWebhook, Organisation
from unionflow.webhooks import emission
from unionflow.webhooks.emission import EvenementWebhook

ROOT = Path(__file__).parents[2]


async def _seed(url: str, hook_url: str, secret: str) -> None:
    engine = create_engine(Settings(database_url=url))
    try:
        async with create_sessionmaker(engine)() as session:
            org = Organisation(nom="Union des tontines de Thiès", type_organisation="ASSOCIATION", statut="ACTIVE",
                               pays="SN", devise="XOF")
            session.add(org)
            await session.flush()
            session.add(AbonnementWebhook(organisation_id=org.id, url=hook_url, secret=secret, actif=True,
                                          evenements=[EvenementWebhook.VERSEMENT_CONFIRME.value],
                                          echecs_consecutifs=0))
            await session.flush()
            queued = await emission.emettre(session, org.id, EvenementWebhook.VERSEMENT_CONFIRME,
                                            {"versementId": uuid.uuid4()})
            assert queued == 1
            await session.commit()
    finally:
        await engine.dispose()


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_job_delivers_due_webhooks(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": url, "PYTHONPATH": str(ROOT / "src"),
           "UNIONFLOW_WEBHOOK_AUTORISER_ADRESSES_PRIVEES": "true"}
    run = [sys.executable, "-m", "unionflow.cli"]
    assert subprocess.run([*run, "migrate"], env=env, capture_output=True, timeout=120, cwd=ROOT).returncode == 0
    with receiver() as hook:
        hook.secret = "whsec_cli"
        asyncio.run(_seed(url, hook.url, hook.secret))
        done = subprocess.run([*run, "jobs", "livrer-webhooks"], env=env, capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "1 livraison(s) webhook réussie(s)" in done.stdout
    assert [e["type"] for e in hook.received] == ["versement.confirme"] and hook.refused_signatures == 0
