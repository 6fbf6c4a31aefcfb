"""The pieces of ``bench/moteurs.py``: a loopback Africa's Talking gateway that counts every delivery per recipient
and can kill the worker whose request it holds, the worker processes of either engine, and their CPU."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from bench.config import ROOT, WORK_DIR
from bench.procs import base_env, cpu_par_processus

BROKER = os.environ.get("BENCH_MOTEURS_BROKER", "amqp://guest:guest@127.0.0.1:5672//")


class Passerelle:
    """Every SMS received, by recipient; ``sur_reception(numero, port_client)`` runs before the answer, so a worker
    killed there dies with its message delivered and its outcome not yet recorded (the worst case for both
    engines, and a deterministic one)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recus: Counter[str] = Counter()
        self.arrivees: list[tuple[float, str]] = []
        self.sur_reception: Callable[[int, int, str], None] | None = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        passerelle = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"]))
                                                    .decode()).items()}
                to = form.get("to", "")
                with passerelle.lock:
                    passerelle.recus[to] += 1
                    passerelle.arrivees.append((time.monotonic(), to))
                    numero = len(passerelle.arrivees)
                if passerelle.sur_reception is not None:
                    passerelle.sur_reception(numero, self.client_address[1], to)
                body = json.dumps({"SMSMessageData": {"Message": "Sent to 1/1", "Recipients": [
                    {"statusCode": 101, "number": to, "status": "Success", "cost": "XOF 20",
                     "messageId": f"ATXid_{numero}"}]}}).encode()
                try:
                    self.send_response(201)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the worker was killed while its message was here

            def log_message(self, *args: Any) -> None:
                return

        return Handler

    def remettre(self) -> None:
        with self.lock:
            self.recus.clear()
            self.arrivees.clear()
        self.sur_reception = None

    @contextmanager
    def servir(self) -> Iterator[str]:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()


def pid_du_port(port_local: int, pids: list[int]) -> int | None:
    """The process among ``pids`` owning the TCP socket bound to ``port_local`` (Linux /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lignes = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for ligne in lignes:
            champs = ligne.split()
            if int(champs[1].rsplit(":", 1)[1], 16) == port_local:
                inodes.add(f"socket:[{champs[9]}]")
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                        return pid
                except OSError:
                    continue
        except OSError:
            continue
    return None


def descendants(pids: list[int]) -> list[int]:
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                todo.extend(int(x) for x in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
        except OSError:
            continue
    return found


class CpuPostgres:
    """CPU of the PostgreSQL backends serving database ``base`` (but ``sauf``, the harness's own): the engines'
    database work, which the table engine does more of and Celery partly moves to its broker. A backend started
    meanwhile counts from its start."""

    def __init__(self, base: str, sauf: frozenset[int] = frozenset()) -> None:
        self.motif, self.sauf = f" {base} ".encode(), sauf
        self.avant: dict[int, float] = {}

    def _pids(self) -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in self.sauf:
                try:
                    cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                except OSError:
                    continue
                if cmd.startswith(b"postgres: ") and self.motif in cmd:
                    found.append(int(entry))
        return found

    def debut(self) -> None:
        self.avant = cpu_par_processus(self._pids())

    def fin(self) -> float:
        return sum(v - self.avant.get(pid, 0.0) for pid, v in cpu_par_processus(self._pids()).items())


def pids_broker() -> list[int]:
    """RabbitMQ's Erlang VM (``beam.smp``), if this machine runs it and lets us read it: its CPU is the broker's."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == "beam.smp":
                    found.append(int(entry))
            except OSError:
                continue
    return found


class Travailleurs:
    """N worker processes of one engine: ``argv`` after ``python -m bench.moteurs_travail``."""

    def __init__(self, nom: str, argv: list[str], n: int, env: dict[str, str]) -> None:
        WORK_DIR.mkdir(parents=True, exist_ok=True)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs = []
        for i in range(n):
            log = open(WORK_DIR / f"moteurs-{nom}-{i}.log", "wb")  # noqa: SIM115 - closed by arreter()
            self.logs.append(log)
            self.procs.append(subprocess.Popen([sys.executable, "-m", "bench.moteurs_travail", *argv], cwd=ROOT,
                                               env=base_env(env), stdout=log, stderr=subprocess.STDOUT,
                                               start_new_session=True))
        self.tues: list[int] = []

    @property
    def pids(self) -> list[int]:
        """Every live worker process, the children of a Celery worker (its pool) included."""
        return [pid for pid in descendants([p.pid for p in self.procs]) if pid not in self.tues]

    def tuer(self, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        self.tues.append(pid)

    def cpu(self) -> float:
        return sum(cpu_par_processus(self.pids).values())

    def vivants(self) -> None:
        for p in self.procs:
            if p.pid not in self.tues and p.poll() is not None:
                raise RuntimeError(f"worker {p.pid} exited ({p.returncode}); see {WORK_DIR}/moteurs-*.log")

    def arreter(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        for log in self.logs:
            log.close()


def consommateurs(file: str) -> int:
    """Consumers attached to the Celery queue (0 while it does not exist yet)."""
    from kombu import Connection

    try:
        with Connection(BROKER, connect_timeout=2) as conn:
            _nom, _messages, n = conn.default_channel.queue_declare(queue=file, passive=True)
            return int(n)
    except Exception:
        return 0


def vider_file(file: str, supprimer: bool = False) -> None:
    """Purge the run's queue before an engine run (a message left by a previous one would be counted), delete it
    after the last."""
    from kombu import Connection

    # A queue not declared yet has nothing to purge (the broker answers 404 and closes the channel).
    with Connection(BROKER, connect_timeout=2) as conn, contextlib.suppress(Exception):
        if supprimer:
            conn.default_channel.queue_delete(file)
        else:
            conn.default_channel.queue_purge(file)


def broker_joignable() -> str | None:
    """None when the broker answers, else why not (the test's skip reason)."""
    from kombu import Connection

    try:
        with Connection(BROKER, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1)
        return None
    except Exception as exc:
        return f"broker {BROKER} unreachable: {type(exc).__name__}: {exc}"
