"""``make fuzz``: schemathesis against a live server, once per role.

Scratch SQLite database and data directory, migrated; one organisation under a union, accounts for
SUPER_ADMIN (with ADMIN, like the bootstrap administrator), ADMIN, TRESORIER and MEMBRE with a little data (dues,
an adhesion, an event); the tests' loopback fake Wave server, so that checkouts, payouts and the balance really
run; uvicorn on a free loopback port; then ``schemathesis run`` with every check, positive and negative data, per
role. Accepted findings live in ``fuzz/schemathesis.toml``, each with its reason."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import httpx
from tests.factories import Factory

from unionflow.auth import keys
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.migrations.alembic import upgrade
from unionflow.models import Adhesion, Cotisation, Evenement
from unionflow.wave.simulateur import SimulateurWave, serving

HERE = Path(__file__).resolve().parent
# Least privileged first: a SUPER_ADMIN run may disable accounts or change settings the others rely on.
ROLES = ("MEMBRE", "TRESORIER", "ADMIN", "SUPER_ADMIN")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def seed(settings: Settings) -> dict[str, str]:
    """Callers and a little data; returns one bearer token per role."""
    engine = create_engine(settings)
    try:
        async with create_sessionmaker(engine)() as session:
            await keys.ensure_signing_key(session)
            await session.commit()
            make = Factory(session, settings, commit=True)
            union = await make.organisation(nom="Union fuzz", type_organisation="UNION")
            org = await make.organisation(parent_id=union.id)
            actors = {
                "SUPER_ADMIN": await make.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False),
                "ADMIN": await make.actor(["ADMIN"], with_membre=False),
                "TRESORIER": await make.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"]),
                "MEMBRE": await make.actor(["MEMBRE"], organisation=org),
            }
            membre = actors["MEMBRE"].membre
            assert membre is not None
            today = date.today()
            session.add_all([
                Cotisation(numero_reference="COT-FUZZ-0001", membre_id=membre.id, organisation_id=org.id,
                           type_cotisation="MENSUELLE", libelle="Cotisation fuzz", annee=today.year,
                           mois=today.month, montant_du=Decimal("5000"), montant_paye=Decimal("0"), devise="XOF",
                           date_echeance=today + timedelta(days=30), statut="EN_ATTENTE"),
                Adhesion(numero_reference="ADH-FUZZ-0001", membre_id=membre.id, organisation_id=org.id,
                         date_demande=today, frais_adhesion=Decimal("2500"), montant_paye=Decimal("0"), devise="XOF",
                         statut="EN_ATTENTE"),
                Evenement(titre="Assemblée générale", organisation_id=org.id, type_evenement="ASSEMBLEE_GENERALE",
                          statut="PLANIFIE", date_debut=make_datetime(today + timedelta(days=20)),
                          date_fin=make_datetime(today + timedelta(days=20), hour=18), capacite_max=50,
                          visibilite="PUBLIC"),
            ])
            await session.commit()
            return {role: actor.token for role, actor in actors.items()}
    finally:
        await engine.dispose()


def make_datetime(day: date, hour: int = 9) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def wait_ready(base_url: str, server: subprocess.Popen[bytes], timeout: float = 240.0) -> None:
    # Generous: on a shared machine under load, importing the app and building its OpenAPI took over a minute.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("le serveur s'est arrêté au démarrage")
        try:
            if httpx.get(f"{base_url}/health/live", timeout=2).status_code == 200:
                # The first OpenAPI build takes seconds on a busy machine; schemathesis waits only 10 s.
                httpx.get(f"{base_url}/openapi.json", timeout=120).raise_for_status()
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit("le serveur n'a pas démarré à temps")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-examples", type=int, default=int(os.environ.get("FUZZ_MAX_EXAMPLES", "25")))
    parser.add_argument("--max-time", type=int, default=int(os.environ.get("FUZZ_MAX_TIME", "0")),
                        help="budget en secondes par rôle (0: pas de limite)")
    parser.add_argument("--roles", default=",".join(ROLES))
    parser.add_argument("--phases", default="examples,coverage,fuzzing")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "20260501")))
    parser.add_argument("--strict", action="store_true",
                        help="valid data refused 400 regle-metier/invalid-state fails too (fuzz/hooks.py)")
    parser.add_argument("--census", type=Path, help="JSON lines: each refusal of valid data beyond the schema")
    parser.add_argument("extra", nargs="*", help="options passées telles quelles à schemathesis")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="unionflow-fuzz-") as scratch, serving(SimulateurWave()) as wave:
        env = {**os.environ,
               "UNIONFLOW_DATABASE_URL": f"sqlite:///{scratch}/fuzz.db",
               "UNIONFLOW_DATA_DIR": f"{scratch}/data",
               "UNIONFLOW_PUBLIC_BASE_URL": "http://127.0.0.1",
               "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024",
               "UNIONFLOW_ACCESS_TOKEN_TTL_SECONDS": "86400",
               # Webhooks are verified (bad signatures are 401); Wave itself is the tests' loopback fake.
               "UNIONFLOW_WAVE_WEBHOOK_SECRET": "fuzz-webhook-secret",
               "UNIONFLOW_WAVE_API_BASE_URL": wave.url, "UNIONFLOW_WAVE_API_KEY": wave.api_key,
               # One line per request would bury schemathesis' report; warnings and errors still show.
               "UNIONFLOW_LOG_LEVEL": "WARNING",
               # The server runs this checkout's code, also from a worktree sharing another checkout's venv.
               "SCHEMATHESIS_HOOKS": "fuzz.hooks", "PYTHONPATH": os.pathsep.join((str(HERE.parent / "src"),
                                                                                  str(HERE.parent))),
               **({"FUZZ_STRICT": "1"} if args.strict else {}),
               **({"FUZZ_CENSUS": str(args.census.resolve())} if args.census else {})}
        os.environ.update(env)
        settings = Settings()
        upgrade(settings.database_url)
        tokens = asyncio.run(seed(settings))
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        env["FUZZ_OPENAPI_URL"] = f"{base_url}/openapi.json"
        server = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            [sys.executable, "-m", "uvicorn", "unionflow.app:create_app", "--factory", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning", "--no-access-log"], env=env)
        failed = []
        try:
            wait_ready(base_url, server)
            for role in args.roles.split(","):
                command = [
                    str(Path(sys.executable).with_name("schemathesis")), "--config-file",
                    str(HERE / "schemathesis.toml"), "run", f"{base_url}/openapi.json",
                    # Replaced by their fuzz/hooks.py variants (problem types, documented leniencies).
                    "--checks", "all", "--exclude-checks", "positive_data_acceptance,negative_data_rejection",
                    "--mode", "all",
                    "--max-examples", str(args.max_examples),
                    "--seed", str(args.seed), "--phases", args.phases, "--workers", "1",
                    "--header", f"Authorization: Bearer {tokens[role]}", "--no-color",
                    "--request-timeout", "30", *(["--max-time", str(args.max_time)] if args.max_time else []),
                    *args.extra]
                print(f"\n=== schemathesis: {role} ===", flush=True)
                if subprocess.run(command, env={**env, "FUZZ_ROLE": role}, check=False).returncode != 0:  # noqa: S603
                    failed.append(role)
        finally:
            server.terminate()
            server.wait(timeout=30)
    if failed:
        print(f"échecs pour: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
