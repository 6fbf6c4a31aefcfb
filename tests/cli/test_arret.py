"""A real ``unionflow serve`` stopped by SIGTERM: the running requests get their answer, every new request on a
connection already open gets 503 + ``Retry-After`` + ``Connection: close``, new connections are refused, none is
accepted and dropped (issue 21, finding 17; issue 32 item 7, the group signal on several workers), then the process
exits."""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.cli.test_serve import _env, _free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")


def _attendre_pret(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until the server answers ready. A readiness wait, not a timing goal: a loaded CI host may take minutes."""
    deadline = time.monotonic() + 300
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.3)


def test_sigterm_answers_the_running_request_and_refuses_new_ones_cleanly(tmp_path):
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port)],
                                   env=_env(tmp_path), stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        _attendre_pret(port, process, log)

        # Kept-alive connections that have been answered once, idle when SIGTERM arrives.
        kept = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(10)]
        for sock in kept:
            sock.sendall(b"GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _read_answer(sock, bytearray())[0] == 200
        # The slow request: its body arrives in two parts, the second one after SIGTERM.
        body = b"grant_type=password&username=x%40example.sn&password=wrong-password"
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        slow.sendall(b"POST /api/auth/token HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:10])
        time.sleep(1.0)  # the app is reading the body
        process.send_signal(signal.SIGTERM)
        time.sleep(0.5)

        with pytest.raises(ConnectionRefusedError):  # no new connection: refused, never accepted and dropped
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        for sock in kept:  # a new request on a kept-alive connection: the 503, then the server closes it
            with sock:
                sock.sendall(b"GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n")
                chunks = []
                while chunk := sock.recv(65536):
                    chunks.append(chunk)
            answer = b"".join(chunks)
            head = answer.split(b"\r\n\r\n", 1)[0].lower()
            assert head.startswith(b"http/1.1 503"), answer  # before finding 17: b"" (accepted, then closed)
            assert b"\r\nretry-after: 5" in head and b"\r\nconnection: close" in head, answer
            assert b"service-en-arret" in answer
        assert process.poll() is None  # still draining: the slow request is running

        slow.sendall(body[10:])
        chunks = []
        while chunk := slow.recv(65536):
            chunks.append(chunk)
        slow.close()
        assert b"".join(chunks).startswith(b"HTTP/1.1 4"), chunks  # its own answer (bad credentials)
        process.wait(timeout=30)
        with pytest.raises(ConnectionRefusedError):  # then the port is closed: refused, never accepted
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


REQUEST = b"GET /health/live HTTP/1.1\r\nHost: t\r\n\r\n"


def _read_answer(sock: socket.socket, buffer: bytearray) -> tuple[int, dict[str, str]] | None:
    """One answer (status, headers) from ``sock``, or None when the connection ends before a whole answer."""
    while b"\r\n\r\n" not in buffer:
        try:
            chunk = sock.recv(65536)
        except OSError:  # reset
            return None
        if not chunk:
            return None
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return None
        if not chunk:
            return None
        rest += chunk
    buffer[:] = rest[length:]
    return int(lines[0].split()[1]), headers


def _client(port: int, outcomes: list[str], pause: float) -> None:
    """Requests on a kept-alive connection, ``pause`` apart; a new connection when an answer closes it, until one
    is refused or the answer is the 503 (the client then waits its Retry-After: the test is over by then). Each
    request sent is counted: ``ok``, ``503`` (with Retry-After and Connection: close) or ``perdue`` (no answer: the
    server closed or reset the connection under it)."""
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        except ConnectionRefusedError:
            outcomes.append("refusee")
            return
        buffer = bytearray()
        with sock:
            while True:
                try:
                    sock.sendall(REQUEST)
                except OSError:
                    outcomes.append("perdue")  # closed under the client, never told
                    return
                answer = _read_answer(sock, buffer)
                if answer is None:
                    outcomes.append("perdue")  # sent whole, then EOF or reset: no answer
                    return
                status, headers = answer
                close = headers.get("connection", "").lower() == "close"
                if status == 503:
                    outcomes.append("503" if close and headers.get("retry-after") == "5" else "503-sans-entetes")
                    return
                outcomes.append("ok" if status == 200 else f"statut-{status}")
                if close:
                    break  # told: a new connection
                time.sleep(pause)


def test_group_sigterm_on_two_workers_answers_every_request_sent(tmp_path):
    """systemd and docker send SIGTERM to the whole group: both workers and the supervisor, which sends its own
    SIGTERM to the workers right after. 40 kept-alive connections, each sending its next request 0 to 195 ms after
    the previous answer: every request sent gets its answer or the 503, none is dropped (issue 32 item 7: 45 dropped
    in one of three runs; 7 to 32 of 40 in each of 8 runs of this test before the fix)."""
    from tests.conftest import BACKEND, scratch_pg_database

    port = _free_port()
    log = tmp_path / "serve.log"
    with contextlib.ExitStack() as stack:
        env = _env(tmp_path)
        if BACKEND == "postgresql":
            env["UNIONFLOW_DATABASE_URL"] = stack.enter_context(scratch_pg_database("unionflow_arret"))
        with log.open("w") as out:
            process = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port),
                                        "--workers", "2", "--no-access-log"], env=env, stdout=out,
                                       stderr=subprocess.STDOUT, cwd=tmp_path, start_new_session=True)

        @stack.callback
        def _kill() -> None:  # the workers too: they are in the server's group
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

        _attendre_pret(port, process, log)

        outcomes: list[list[str]] = [[] for _ in range(40)]
        threads = [threading.Thread(target=_client, args=(port, mine, n * 0.005)) for n, mine in enumerate(outcomes)]
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        os.killpg(process.pid, signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=45)
        process.wait(timeout=45)
        counts = collections.Counter(outcome for mine in outcomes for outcome in mine)
        assert counts["ok"] > 0 and counts["503"] + counts["refusee"] > 0, counts
        assert set(counts) <= {"ok", "503", "refusee"}, (counts, log.read_text()[-3000:])
