"""Server processes under test: start, wait until ready, find worker processes, read their memory, stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.config import ROOT, WORK_DIR


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # This worktree's code, whatever the shared virtualenv's editable install points at. BENCH_SRC serves
    # another tree (e.g. ``git archive <commit> src``) for before/after comparisons on the same data.
    src = os.environ.get("BENCH_SRC") or str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, str(ROOT)])
    env.update(extra or {})
    return env


class Server:
    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int) -> None:
        self.name, self.port = name, port
        WORK_DIR.mkdir(parents=True, exist_ok=True)
        self.log_path = WORK_DIR / f"{name}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, path: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.proc.returncode}); see {self.log_path}:\n"
                                   + self.log_path.read_text(errors="replace")[-2000:])
            try:
                with urllib.request.urlopen(self.base + path, timeout=2) as resp:
                    if resp.status == 200 and len(self.workers()) >= self.expected_workers() \
                            and listening_sockets(self.port) >= self.expected_sockets():
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{self.name} not ready after {timeout}s; see {self.log_path}")

    def expected_workers(self) -> int:
        """Worker processes, each listening on its own socket of the port (``unionflow serve --workers``:
        core/listening.py): the load starts once every one of them accepts, or the connections opened before a
        late worker listens all go to the others (a bench run had all 100 of its connections on one of two
        workers, at two thirds of the throughput)."""
        return 1

    def workers(self) -> list[int]:
        """uvicorn's worker processes (multiprocessing spawn children of the supervisor)."""
        found = []
        for child in _children(self.proc.pid):
            try:
                cmd = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmd:
                found.append(child)
        return found or [self.proc.pid]

    def expected_sockets(self) -> int:
        """``unionflow serve`` workers each listen on their own socket (SO_REUSEPORT)."""
        return self.expected_workers()

    def log_size(self) -> int:
        self._log.flush()
        return self.log_path.stat().st_size

    def log_since(self, offset: int) -> str:
        self._log.flush()
        with open(self.log_path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._log.close()


class WorkerServer(Server):
    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int, workers: int) -> None:
        self._workers = workers
        super().__init__(name, argv, env, port)

    def expected_workers(self) -> int:
        return self._workers if self._workers > 1 else 1


class ReferenceServer(WorkerServer):
    """uvicorn's own ``--workers``: its workers share the supervisor's one listening socket (no SO_REUSEPORT, as
    ``unionflow serve`` has), so one socket is all there is to wait for."""

    def expected_sockets(self) -> int:
        return 1


def listening_sockets(port: int) -> int:
    """TCP sockets in LISTEN state on ``port`` (Linux ``/proc/net/tcp*``; elsewhere the check is skipped)."""
    count, seen = 0, False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        seen = True
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                count += 1
    return count if seen else 1 << 30


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
            kids.extend(int(x) for x in text.split())
    except OSError:
        pass
    return kids


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU consumed so far by ``pids`` (from /proc/<pid>/stat)."""
    return sum(cpu_par_processus(pids).values())


def cpu_par_processus(pids: list[int]) -> dict[int, float]:
    """Each live process's user + system CPU so far, in seconds (an exited one is left out)."""
    found = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return found


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# The USSD PINs' key of the bench's production server (production refuses to start without one); the USSD
# bench's generator digests the PINs with it (bench/telephones.py).
CLE_PIN_USSD = "bench-cle-des-pin-ussd-2026-0123456789"


def start_service(name: str, database_url: str, workers: int, extra_env: dict[str, str] | None = None,
                  port: int | None = None) -> Server:
    # ``port``: a restart on the same address (the tokens name it as their issuer).
    port = port or free_port()
    env = base_env({
        "UNIONFLOW_DATABASE_URL": database_url,
        "UNIONFLOW_ENVIRONMENT": "production",
        "UNIONFLOW_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": "Bench-Admin-2026!",
        "UNIONFLOW_ACCESS_TOKEN_TTL_SECONDS": "14400",
        "UNIONFLOW_DATA_DIR": str(WORK_DIR / "data"),
        "UNIONFLOW_USSD_PIN_CLE": CLE_PIN_USSD,
        **(extra_env or {}),
    })
    argv = [sys.executable, "-m", "unionflow.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--no-access-log", "--log-level", "warning"]
    server = WorkerServer(name, argv, env, port, workers)
    server.wait_ready("/health/ready", timeout=180)
    return server


def start_reference(name: str, factory: str, workers: int, env: dict[str, str], ready_path: str) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", f"bench.refs:{factory}", "--factory", "--host", "127.0.0.1",
            "--port", str(port), "--workers", str(workers), "--no-access-log", "--log-level", "warning"]
    server = ReferenceServer(name, argv, base_env(env), port, workers)
    server.wait_ready(ready_path, timeout=60)
    return server


def drive(server: Server, requests: list[list[Any]], *, connections: int, duration: float, warmup: float = 2.0,
          once: bool = False, tick: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run the load driver in its own process against ``server``; ``tick(elapsed)`` is called about every
    second while it runs (memory sampling during the soak)."""
    spec = {"host": "127.0.0.1", "port": server.port, "connections": connections, "duration": duration,
            "warmup": warmup, "requests": requests, "once": once}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, dir=WORK_DIR) as fh:
        json.dump(spec, fh)
        path = fh.name
    out_path = path + ".out"
    started = time.monotonic()
    try:
        with open(out_path, "w") as out, open(out_path + ".err", "w") as err:
            proc = subprocess.Popen([sys.executable, "-m", "bench.driver", path], cwd=ROOT, env=base_env(),
                                    stdout=out, stderr=err)
            while True:
                try:
                    proc.wait(1.0)
                    break
                except subprocess.TimeoutExpired:
                    if tick is not None:
                        tick(time.monotonic() - started)
                    if time.monotonic() - started > duration + warmup + 120:
                        proc.kill()
        if proc.returncode != 0:
            raise RuntimeError("driver failed: " + Path(out_path + ".err").read_text()[-2000:])
        result: dict[str, Any] = json.loads(Path(out_path).read_text().strip().splitlines()[-1])
    finally:
        for leftover in (path, out_path, out_path + ".err"):
            Path(leftover).unlink(missing_ok=True)
    return result
