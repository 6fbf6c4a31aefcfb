"""The operator's command line, run as operators run it: a subprocess on a fresh database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BACKEND


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).parents[2])


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_migrate_bootstrap_and_users(tmp_path):
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
           "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024",
           "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    migrated = _run(["migrate"], env)
    assert migrated.returncode == 0, migrated.stderr

    created = _run(["users", "create", "--email", "Tresorier@Example.sn", "--password", "un-mot-de-passe-long",
                    "--role", "USER", "--role", "TRESORIER"], env)
    assert created.returncode == 0, created.stderr
    assert "tresorier@example.sn" in created.stdout

    duplicate = _run(["users", "create", "--email", "tresorier@example.sn", "--password", "un-mot-de-passe-long"], env)
    assert duplicate.returncode == 1 and "existe déjà" in duplicate.stderr

    bad_role = _run(["users", "create", "--email", "x@example.sn", "--password", "un-mot-de-passe-long",
                     "--role", "ROI"], env)
    assert bad_role.returncode == 1

    listing = _run(["users", "list"], env)
    assert "TRESORIER,USER" in listing.stdout


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
async def test_bootstrap_creates_super_admin_once_with_generated_password(tmp_path):
    from unionflow.bootstrap import bootstrap
    from unionflow.config import Settings
    from unionflow.migrations.alembic import upgrade

    url = f"sqlite:///{tmp_path / 'boot.db'}"
    import asyncio

    await asyncio.to_thread(upgrade, url)
    settings = Settings(database_url=url, argon2_time_cost=1, argon2_memory_cost=1024)
    generated = await bootstrap(settings)
    assert generated and len(generated) >= 20
    assert await bootstrap(settings) is None, "a second start must not create or print anything"
