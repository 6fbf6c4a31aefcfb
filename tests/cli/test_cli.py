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
                          timeout=300, cwd=Path(__file__).parents[2])


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
    # Whoever reads the start-up output knows it: the administrator must change it at first sign-in.
    from sqlalchemy import select

    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.models import UtilisateurLocal

    engine = create_engine(settings)
    async with create_sessionmaker(engine)() as session:
        [admin] = (await session.execute(select(UtilisateurLocal))).scalars().all()
        assert admin.password_change_required is True
    await engine.dispose()


def _example_env() -> dict[str, str]:
    values = {}
    for line in (Path(__file__).parents[2] / "deploy" / "unionflow.env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_production_refuses_to_start_with_the_example_settings(tmp_path):
    """The example env file copied unchanged: `serve` and `worker` exit non-zero with a clear reason before
    touching the database (no administrator with the example password)."""
    example = _example_env()
    assert example.get("UNIONFLOW_ENVIRONMENT") == "production"
    database = tmp_path / "prod.db"
    env = {**os.environ, **example, "UNIONFLOW_DATABASE_URL": f"sqlite:///{database}",
           "UNIONFLOW_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    # compose builds the database URL from POSTGRES_PASSWORD: its placeholder is refused as well.
    env_pg = {**env, "UNIONFLOW_DATABASE_URL": f"postgresql://unionflow:{example['POSTGRES_PASSWORD']}@db/unionflow"}
    for args, environ in ((["serve", "--port", "0"], env), (["worker", "--once"], env), (["serve"], env_pg)):
        refused = _run(args, environ)
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert "production start refused" in refused.stderr
    assert "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD" in refused.stderr or "POSTGRES_PASSWORD" in refused.stderr
    assert not database.exists() or database.stat().st_size == 0
    weak = _run(["serve"], {**env, "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": "court"})
    assert weak.returncode == 2 and "too weak" in weak.stderr


def test_production_refusals_name_each_example_secret():
    from unionflow.config import Settings
    from unionflow.core.production import production_refusals

    base = {"environment": "production", "database_url": "postgresql://u:Vrai-Secret-8213@db/u",
            "ussd_pin_cle": "k" * 32}
    assert production_refusals(Settings(**base, bootstrap_admin_password="Un-Vrai-Secret-2026")) == []
    assert production_refusals(Settings(**base)) == []  # empty: generated and shown once
    refusals = production_refusals(Settings(**base, bootstrap_admin_password="change-me-at-first-login",
                                            wave_webhook_secret="CHANGE_ME", metrics_token="remplacer-moi"))
    assert len(refusals) == 3 and any("WAVE_WEBHOOK_SECRET" in r for r in refusals)
    assert production_refusals(Settings(bootstrap_admin_password="change-me-at-first-login")) == []  # development


def test_production_names_its_database(tmp_path, monkeypatch):
    """No UNIONFLOW_DATABASE_URL in production: refused (it would run on ./var/unionflow.db); SQLite named
    explicitly is a choice, and starts."""
    from unionflow.config import Settings
    from unionflow.core.production import production_refusals

    monkeypatch.delenv("UNIONFLOW_DATABASE_URL", raising=False)
    [refusal] = production_refusals(Settings(environment="production", ussd_pin_cle="k" * 32))
    assert "UNIONFLOW_DATABASE_URL is not set" in refusal and "SQLite embarqué" in refusal
    monkeypatch.setenv("UNIONFLOW_DATABASE_URL", f"sqlite:///{tmp_path / 'choisie.db'}")
    assert production_refusals(Settings(environment="production", ussd_pin_cle="k" * 32)) == []
    assert production_refusals(Settings()) == []  # development: the embedded default stays the default


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_production_without_a_database_url_does_not_start(tmp_path):
    env = {name: value for name, value in os.environ.items() if name != "UNIONFLOW_DATABASE_URL"}
    env.update({"UNIONFLOW_ENVIRONMENT": "production", "UNIONFLOW_DATA_DIR": str(tmp_path / "data"),
                "PYTHONPATH": str(Path(__file__).parents[2] / "src")})
    for args in (["serve", "--port", "0"], ["worker", "--once"]):
        refused = subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, capture_output=True,
                                 text=True, timeout=300, cwd=tmp_path)
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert "UNIONFLOW_DATABASE_URL is not set" in refused.stderr
    assert not (tmp_path / "var").exists()


def test_a_dotenv_in_the_working_directory_changes_nothing(tmp_path, monkeypatch, settings):
    """The README's production step leaves a .env (docker compose's) in the checkout: neither the settings
    nor the test harness read it."""
    from unionflow.config import Settings

    (tmp_path / ".env").write_text("UNIONFLOW_ENVIRONMENT=production\nUNIONFLOW_DATABASE_URL=postgresql://x@db/x\n"
                                   "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD=CHANGE_ME\nUNIONFLOW_MAX_PAGE_SIZE=3\n")
    monkeypatch.chdir(tmp_path)
    for name in ("UNIONFLOW_ENVIRONMENT", "UNIONFLOW_DATABASE_URL", "UNIONFLOW_MAX_PAGE_SIZE"):
        monkeypatch.delenv(name, raising=False)
    read_here = Settings()
    assert read_here.environment == "development" and read_here.max_page_size == 200
    assert read_here.database_url == "sqlite:///./var/unionflow.db"
    assert settings.environment == "development" and settings.max_page_size == 200


@pytest.mark.skipif(BACKEND != "sqlite", reason="one backend is enough for the CLI wiring")
def test_users_create_reads_the_password_from_stdin_or_a_prompt(tmp_path):
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
           "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024",
           "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    assert _run(["migrate"], env).returncode == 0

    def run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "unionflow.cli", *args], env=env, capture_output=True,
                              text=True, timeout=300, input=stdin, cwd=Path(__file__).parents[2])

    piped = run(["users", "create", "--email", "a@union.sn", "--password-stdin"], "secret-par-stdin-1\n")
    assert piped.returncode == 0, piped.stderr
    prompted = run(["users", "create", "--email", "b@union.sn"], "secret-tape-2026\nsecret-tape-2026\n")
    assert prompted.returncode == 0, prompted.stderr
    mismatch = run(["users", "create", "--email", "c@union.sn"], "secret-tape-2026\nautre-chose-2026\n")
    assert mismatch.returncode == 1 and "diffèrent" in mismatch.stderr
    assert "secret" not in piped.stdout + prompted.stdout
    listing = run(["users", "list"], "").stdout
    assert "a@union.sn" in listing and "b@union.sn" in listing and "c@union.sn" not in listing
