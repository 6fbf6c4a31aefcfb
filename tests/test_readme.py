"""The README's « First steps », run as a newcomer runs them: its shell blocks, verbatim but for the port, with
bash, curl and jq, against a live ``unionflow serve`` on a fresh SQLite database in a scratch directory. A
README that drifts from the API fails here."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import BACKEND

ROOT = Path(__file__).resolve().parents[1]
README_BASE = "BASE=http://127.0.0.1:8000"


def first_steps() -> str:
    """The shell blocks of the README's « First steps » section, in order."""
    section = ROOT.joinpath("README.md").read_text().split("\n## First steps\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert blocks, "README « First steps » has no sh block"
    return "\n".join(blocks)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _generated_password(log: Path, server: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 300  # a readiness wait, not a timing goal: a loaded CI host may take minutes
    while time.monotonic() < deadline:
        found = re.search(r"Generated password \(shown once, change it\): (\S+)", log.read_text(errors="replace"))
        if found:
            return found.group(1)
        assert server.poll() is None, log.read_text()
        time.sleep(0.2)
    raise AssertionError("no generated password printed: " + log.read_text())


def _wait_ready(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 300  # a readiness wait, not a timing goal: a loaded CI host may take minutes
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()
        try:
            if httpx.get(f"{base}/openapi.json", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise AssertionError("server not ready: " + log.read_text())


@pytest.mark.skipif(BACKEND != "sqlite", reason="the walkthrough runs on the embedded SQLite database, as `make run`")
@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq") and shutil.which("bash")),
                    reason="the README's walkthrough needs bash, curl and jq")
def test_the_readme_first_steps_work_as_written(tmp_path):
    script = first_steps()
    assert README_BASE in script
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    # As `make run` in a fresh clone: the default database (./var/unionflow.db) of a working directory of its own.
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("UNIONFLOW_") or name.startswith("UNIONFLOW_ARGON2_")}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port)],
                                  cwd=tmp_path, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=out,
                                  stderr=subprocess.STDOUT)
    try:
        password = _generated_password(log, server)
        _wait_ready(base, server, log)
        shown = script.replace(README_BASE, f"BASE={base}") + '\nprintf "\\nORG=%s\\n" "$ORG"\n'
        run = subprocess.run(["bash", "-c", shown], input=f"{password}\nMon-secret-a-moi-2026\n",
                             capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    output = run.stdout
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert "mot-de-passe-a-changer" not in output and "Jeton illisible" not in output, output
    assert '"status":4' not in output and '"status":5' not in output, output
    assert re.search(r"^ORG=[0-9a-f-]{36}$", output, flags=re.MULTILINE), output
    assert '"numeroMembre":"MBR-' in output and '"username":"moussa.fall@example.sn"' in output
    assert '"nom":"Mutuelle des enseignants de Thiès"' in output and '"prenom":"Moussa"' in output
    assert (tmp_path / "var" / "unionflow.db").exists()
