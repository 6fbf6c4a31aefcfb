"""A real ``unionflow serve`` stopped by SIGTERM while a request is running: the running request gets its answer,
every new request gets 503 + ``Retry-After`` + ``Connection: close`` instead of being accepted and dropped
(issue 21, finding 17), then the process exits."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tests.cli.test_serve import _env, _free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")


def _exchange(port: int, raw: bytes) -> bytes:
    """Send one request on a new connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_sigterm_answers_the_running_request_and_refuses_new_ones_cleanly(tmp_path):
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "unionflow.cli", "serve", "--port", str(port)],
                                   env=_env(tmp_path), stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 300  # a readiness wait, not a timing goal: a loaded CI host may take minutes
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)

        # The slow request: its body arrives in two parts, the second one after SIGTERM.
        body = b"grant_type=password&username=x%40example.sn&password=wrong-password"
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        slow.sendall(b"POST /api/auth/token HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:10])
        time.sleep(1.0)  # the app is reading the body
        process.send_signal(signal.SIGTERM)
        time.sleep(0.5)

        answers = [_exchange(port, b"GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n") for _ in range(10)]
        for answer in answers:
            head = answer.split(b"\r\n\r\n", 1)[0].lower()
            assert head.startswith(b"http/1.1 503"), answer  # before the fix: b"" (accepted, then closed)
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
