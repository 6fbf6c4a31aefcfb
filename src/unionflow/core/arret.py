"""A stopping server answers every request it has let in (docs/decisions.md, finding 17 and « Every request let
in is answered »).

On SIGTERM uvicorn closed its listening socket and every idle connection within 0.1 s: requests that had just
been accepted (or were still in the socket's backlog) were dropped unanswered, 16–19 of 30 in the fault tests
(finding 17). A first drain answered new requests 503 but still stopped at once when no request was running, and a
second SIGTERM (under ``--workers`` the supervisor's, right after the group's) cut it short: a kept-alive connection
closed while its client was writing its next request lost that request, 7–32 of 40 in the group-signal test.

Now, on the first SIGTERM, in this order:

1. the listening socket is closed: a new connection is refused (clean, retryable: no request was sent) once every
   worker has closed its own (core/listening.py), instead of being accepted and closed unanswered;
2. the connections already accepted stay served: a running request finishes; a new request, on a kept-alive
   connection, is answered 503 ``service-en-arret`` with ``Retry-After`` and ``Connection: close``, after which the
   server closes that connection itself (the client was told);
3. when no request is running and either every connection is closed or ``GRACE_SECONDS`` have passed, uvicorn's
   own handler is called: it closes the connections still idle (their clients sent nothing during the grace) and
   stops. At most ``DRAIN_MAX_SECONDS`` in all. With no connection open, the stop is immediate.

A further SIGTERM is the same stop (ignored). Only under uvicorn (its handler is a method of its ``Server``), in the
main thread: tests and other hosts keep their own signal handling.
"""

from __future__ import annotations

import asyncio
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
# How long a stopping process keeps its kept-alive connections open for their clients' next request (answered 503 +
# ``Connection: close``) before uvicorn closes the idle ones: a connection closed under a client that is writing
# its next request loses that request. Over sooner once every connection is closed.
GRACE_SECONDS = 2.0
_TICK_SECONDS = 0.02


class Drain:
    """One per process: whether the process is stopping, and how many requests it is serving."""

    def __init__(self) -> None:
        self.stopping = False
        self.running = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def install(self) -> None:
        """Called at start-up (lifespan), in the event loop."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous: Any = signal.getsignal(signal.SIGTERM)
        server: Any = getattr(previous, "__self__", None)
        if type(server).__module__ != "uvicorn.server":
            return
        loop = asyncio.get_running_loop()

        def on_sigterm(sig: int, frame: FrameType | None) -> None:
            if self.stopping:
                # The same stop: under ``--workers`` a group signal (systemd, docker) reaches each worker twice, its
                # own and the supervisor's, which must not cut the drain short.
                return
            self.stopping = True
            log.warning("SIGTERM: arrêt, nouvelles connexions refusées, nouvelles requêtes 503, %d en cours, "
                        "%d connexions", self.running, len(server.server_state.connections))
            task = loop.create_task(self._stop_when_drained(server, previous, sig, frame))
            self._tasks.add(task)

        signal.signal(signal.SIGTERM, on_sigterm)

    async def _stop_when_drained(self, server: Any, previous: Any, sig: int, frame: FrameType | None) -> None:
        """Until the running requests are over and (every connection is closed or the grace is over), at most
        ``DRAIN_MAX_SECONDS``; then uvicorn's own handler closes what is left, idle, and stops."""
        # No new connection first: the port refuses them (a clean, retryable refusal) once every worker has closed
        # its socket, rather than accepting them to close them unanswered. In the loop, not in the signal handler.
        for listener in getattr(server, "servers", []):
            listener.close()
        loop = asyncio.get_running_loop()
        start = loop.time()
        while (elapsed := loop.time() - start) < DRAIN_MAX_SECONDS:
            if self.running == 0 and (elapsed >= GRACE_SECONDS or not server.server_state.connections):
                break
            await asyncio.sleep(_TICK_SECONDS)
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
