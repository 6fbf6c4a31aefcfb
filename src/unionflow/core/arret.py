"""A stopping server refuses new requests cleanly (finding 17).

On SIGTERM uvicorn closed its listening socket and every idle connection within 0.1 s: requests that had just
been accepted (or were still in the socket's backlog) were dropped unanswered, 16–19 of 30 in the fault tests.
Now SIGTERM first starts a drain: every new request is answered 503 ``service-en-arret`` with ``Retry-After`` and
``Connection: close`` (``/health/ready`` included, so a load balancer takes this process out), while the requests
already running finish; only then is uvicorn's own handler called, which closes the socket and stops. With no
request running the stop is immediate, as before. A drain lasts at most ``DRAIN_MAX_SECONDS``.

Only under uvicorn (its handler is a method of its ``Server``), in the main thread: tests and other hosts keep
their own signal handling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from types import FrameType
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from unionflow.core.errors import problem

log = logging.getLogger(__name__)

DRAIN_MAX_SECONDS = 30.0
RETRY_AFTER_SECONDS = 5


class Drain:
    """One per process: whether the process is stopping, and how many requests it is serving."""

    def __init__(self) -> None:
        self.stopping = False
        self.running = 0
        self.idle = asyncio.Event()  # set when stopping and no request is running
        self._tasks: set[asyncio.Task[None]] = set()

    def install(self) -> None:
        """Called at start-up (lifespan), in the event loop."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous: Any = signal.getsignal(signal.SIGTERM)
        if type(getattr(previous, "__self__", None)).__module__ != "uvicorn.server":
            return
        loop = asyncio.get_running_loop()

        def on_sigterm(sig: int, frame: FrameType | None) -> None:
            if self.stopping:
                previous(sig, frame)
                return
            self.stopping = True
            log.warning("SIGTERM: arrêt, nouvelles requêtes refusées (503), %d en cours", self.running)
            task = loop.create_task(self._stop_when_idle(previous, sig, frame))
            self._tasks.add(task)

        signal.signal(signal.SIGTERM, on_sigterm)

    async def _stop_when_idle(self, previous: Any, sig: int, frame: FrameType | None) -> None:
        if self.running > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.idle.wait(), DRAIN_MAX_SECONDS)
        previous(sig, frame)


DRAIN = Drain()


class DrainMiddleware:
    """Counts the requests being served; answers 503 + ``Connection: close`` to new ones once stopping."""

    def __init__(self, app: ASGIApp, drain: Drain = DRAIN) -> None:
        self.app = app
        self.drain = drain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.drain.stopping:
            response = problem(503, "Service en cours d'arrêt",
                               "Ce processus s'arrête; réessayez dans quelques secondes.", "service-en-arret",
                               scope.get("path"), {"Retry-After": str(RETRY_AFTER_SECONDS), "Connection": "close"})
            await response(scope, receive, send)
            return
        self.drain.running += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.drain.running -= 1
            if self.drain.stopping and self.drain.running == 0:
                self.drain.idle.set()
