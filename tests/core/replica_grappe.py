"""A PostgreSQL primary and its streaming replica, started for the replica tests (tests/core/test_replica.py).

The main test server does not accept replication connections, so the tests start their own pair: ``initdb`` of a
primary (WAL for replicas, replication allowed from 127.0.0.1), ``pg_basebackup -R`` of it as the replica, both on
free ports under a temporary directory of their own (parallel workers never share one). The server binaries
refuse root: run as root, they run as the ``postgres`` account.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg

# Where Debian puts the server binaries (initdb, pg_ctl are not on PATH there): the newest version installed, or
# UNIONFLOW_TEST_PG_BIN. Looked at before PATH, so that the three come from one version.
_DEBIAN = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if
                 p.parent.name.isdigit() else 0)
PG_BIN = Path(os.environ.get("UNIONFLOW_TEST_PG_BIN") or (_DEBIAN[-1] if _DEBIAN else "/usr/lib/postgresql/bin"))
BINAIRES = ("initdb", "pg_ctl", "pg_basebackup")


def binaire(nom: str) -> str | None:
    chemin = PG_BIN / nom
    return str(chemin) if chemin.exists() else shutil.which(nom)


def absents() -> str | None:
    """Why the pair cannot be started here (a skip reason), or None."""
    manquants = [nom for nom in BINAIRES if binaire(nom) is None]
    if manquants:
        return f"binaires du serveur PostgreSQL absents ({', '.join(manquants)}): test du réplica sauté"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "lancé en root sans compte postgres: les binaires du serveur refusent root, test du réplica sauté"
    return None


def _port_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Grappe:
    racine: Path
    port_primaire: int
    port_replica: int

    def url(self, port: int, user: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{port}/postgres"

    @property
    def url_primaire(self) -> str:
        return self.url(self.port_primaire)

    @property
    def url_replica(self) -> str:
        return self.url(self.port_replica)

    def _comme_postgres(self, *commande: str) -> None:
        prefixe = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefixe, *commande], check=True, capture_output=True, timeout=120)

    def pg_ctl(self, nom: str, action: str) -> None:
        port = self.port_primaire if nom == "primaire" else self.port_replica
        self._comme_postgres(binaire("pg_ctl") or "pg_ctl", "-D", str(self.racine / nom), "-l",
                             str(self.racine / f"{nom}.log"), "-w", "-t", "60", "-m", "fast",
                             "-o", f"-p {port} -k {self.racine}", action)

    async def sql(self, port: int, requete: str) -> object:
        connection = await asyncpg.connect(self.url(port), timeout=5)
        try:
            return await connection.fetchval(requete)
        finally:
            await connection.close()

    async def attendre(self, condition: str, port: int, delai: float = 30.0) -> None:
        """Poll ``condition`` (an SQL boolean) until true: readiness, not a guessed sleep."""
        fin = time.monotonic() + delai
        while await self.sql(port, f"SELECT {condition}") is not True:
            if time.monotonic() > fin:
                raise TimeoutError(condition)
            await asyncio.sleep(0.05)

    async def rattrapee(self) -> None:
        """Wait until the replica has replayed everything the primary has written so far."""
        position = await self.sql(self.port_primaire, "SELECT pg_current_wal_lsn()::text")
        await self.attendre(f"pg_last_wal_replay_lsn() >= '{position}'::pg_lsn", self.port_replica)

    async def pause(self) -> None:
        await self.sql(self.port_replica, "SELECT pg_wal_replay_pause()")
        await self.attendre("pg_get_wal_replay_pause_state() = 'paused'", self.port_replica)

    async def reprise(self) -> None:
        await self.sql(self.port_replica, "SELECT pg_wal_replay_resume()")
        await self.rattrapee()


def _configurer_primaire(donnees: Path) -> None:
    with open(donnees / "postgresql.conf", "a") as conf:
        # fsync off: the clusters live for one test run; the application still asks for synchronous commits.
        conf.write("listen_addresses = '127.0.0.1'\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\n")
    with open(donnees / "pg_hba.conf", "a") as hba:
        hba.write("host replication all 127.0.0.1/32 trust\n")


@contextlib.asynccontextmanager
async def grappe() -> AsyncIterator[Grappe]:
    """The running pair, stopped and removed afterwards even when starting it failed half-way."""
    racine = Path(tempfile.mkdtemp(prefix="unionflow-replica-"))
    if os.geteuid() == 0:
        compte = pwd.getpwnam("postgres")
        os.chown(racine, compte.pw_uid, compte.pw_gid)
    paire = Grappe(racine, _port_libre(), _port_libre())
    demarres: list[str] = []
    try:
        paire._comme_postgres(binaire("initdb") or "initdb", "-D", str(racine / "primaire"), "-U", "postgres",
                              "--auth=trust", "-E", "UTF8", "--no-sync")
        _configurer_primaire(racine / "primaire")
        paire.pg_ctl("primaire", "start")
        demarres.append("primaire")
        paire._comme_postgres(binaire("pg_basebackup") or "pg_basebackup", "-h", "127.0.0.1", "-p",
                              str(paire.port_primaire), "-U", "postgres", "-D", str(racine / "replica"), "-R",
                              "-X", "stream", "--no-sync")
        paire.pg_ctl("replica", "start")
        demarres.append("replica")
        await paire.attendre("pg_is_in_recovery()", paire.port_replica)
        yield paire
    finally:
        for nom in reversed(demarres):
            with contextlib.suppress(Exception):
                paire.pg_ctl(nom, "stop")
        shutil.rmtree(racine, ignore_errors=True)
