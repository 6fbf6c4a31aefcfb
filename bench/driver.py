"""Load driver: N keep-alive HTTP/1.1 connections over loopback for a fixed duration, latencies recorded.

Runs in its own process (``python -m bench.driver spec.json``) so it never shares an interpreter with
the server under test; prints one JSON result on stdout. Raw asyncio streams on uvloop: an HTTP client
library would cost more CPU per request than the servers being compared, on a 2-core machine.

Spec: ``host``, ``port``, ``connections``, ``duration``, ``warmup`` (seconds not recorded),
``requests`` (list of ``[method, path, headers, body-or-null]``), ``once`` (each request sent at most
once — write scenarios that must not pay the same dues twice), ``timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

LOCKED = b"database is locked"


def encode(host: str, port: int, method: str, path: str, headers: dict[str, str], body: str | None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "User-Agent: unionflow-bench/1",
             "Accept: application/json"]
    payload = body.encode() if body is not None else b""
    if body is not None:
        lines.append("Content-Type: application/json")
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(payload)}")
    lines.extend(f"{k}: {v}" for k, v in headers.items())
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = -1
    chunked = False
    close = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"connection" and b"close" in value.lower():
            close = True
    if chunked:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size + 2))
        body = b"".join(p[:-2] for p in parts)
    elif length >= 0:
        body = await reader.readexactly(length)
    else:
        body = await reader.read()
        close = True
    return status, body, close


class Run:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        host, port = spec["host"], spec["port"]
        self.requests = [encode(host, port, m, p, h, b) for m, p, h, b in spec["requests"]]
        self.once = bool(spec.get("once"))
        self.next = 0
        self.completed = 0
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.errors = 0
        self.error_samples: list[str] = []
        self.locked = 0
        self.bodies: dict[int, str] = {}
        self.record = False
        self.stop = False

    def pick(self) -> bytes | None:
        if self.next >= len(self.requests):
            if self.once:
                return None
            self.next = 0
        req = self.requests[self.next]
        self.next += 1
        return req

    async def connection(self) -> None:
        host, port, timeout = self.spec["host"], self.spec["port"], float(self.spec.get("timeout", 30))
        reader = writer = None
        while not self.stop:
            req = self.pick()
            if req is None:
                break
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection(host, port)
                assert reader is not None
                t0 = time.perf_counter()
                writer.write(req)
                status, body, close = await asyncio.wait_for(read_response(reader), timeout)
                elapsed = time.perf_counter() - t0
                self.completed += 1
                if self.record:
                    self.latencies.append(elapsed)
                    self.statuses[status] = self.statuses.get(status, 0) + 1
                    if LOCKED in body:
                        self.locked += 1
                if status >= 300 and status not in self.bodies:
                    self.bodies[status] = body[:300].decode(errors="replace")
                if close:
                    writer.close()
                    reader = writer = None
            except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
                if self.record:
                    self.errors += 1
                    if len(self.error_samples) < 3:
                        self.error_samples.append(f"{type(exc).__name__}: {exc}")
                if writer is not None:
                    writer.close()
                reader = writer = None
                await asyncio.sleep(0.01)
        if writer is not None:
            writer.close()

    async def main(self) -> dict[str, Any]:
        tasks = [asyncio.create_task(self.connection()) for _ in range(int(self.spec["connections"]))]
        warmup = float(self.spec.get("warmup", 2))
        await asyncio.sleep(warmup)
        self.record = True
        started = time.perf_counter()
        duration = float(self.spec["duration"])
        done = asyncio.gather(*tasks)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), duration)
        self.record = False
        elapsed = time.perf_counter() - started
        self.stop = True
        try:
            await asyncio.wait_for(done, 10)
        except TimeoutError:
            for t in tasks:
                t.cancel()
        return self.result(elapsed)

    def result(self, elapsed: float) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(p: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else None

        count = len(lat)
        ok = sum(n for s, n in self.statuses.items() if 200 <= s < 300)
        return {
            "requests": count, "seconds": round(elapsed, 2), "rps": round(count / elapsed, 1) if elapsed else 0,
            "ok_rps": round(ok / elapsed, 1) if elapsed else 0,
            "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "errors": self.errors, "non_2xx": count - ok,
            "status_5xx": sum(n for s, n in self.statuses.items() if s >= 500),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "locked_in_body": self.locked, "error_samples": self.error_samples,
            "body_samples": {str(k): v for k, v in self.bodies.items()},
            "connections": self.spec["connections"], "all_requests": self.completed,
            "exhausted": self.once and self.next >= len(self.requests),
        }


def main() -> None:
    with open(sys.argv[1]) as fh:
        spec = json.load(fh)
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    print(json.dumps(asyncio.run(Run(spec).main())))


if __name__ == "__main__":
    main()
