"""`unionflow serve --workers N`: a listening socket of its own for each worker (SO_REUSEPORT), not one shared.

Why: on one shared socket every idle worker wakes up on a new connection and asyncio's accept loop takes all the
connections waiting, so a burst of keep-alive connections lands mostly on one worker while the others idle. A USSD
gateway's 100 connections were split 71/29 over two workers: the busy one's queue made the answers' p99 several
times their median (docs/performance.md « USSD et SMS »). With a socket each, the kernel spreads the connections
over the workers by a hash of their addresses, and no worker takes another's.

Only uvicorn's supervisor is used (restarts, health checks, signals): what it hands each worker process is
:class:`SocketParWorker`, which becomes, when the worker unpickles its arguments (uvicorn starts workers with
multiprocessing's spawn), a new socket of that process's own in the port's group.
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import Any

# uvicorn's exit code when a server cannot start (uvicorn.server.STARTUP_FAILURE).
STARTUP_FAILURE = 3


def _lier(host: str, port: int, family: int) -> socket.socket:
    sock = socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


class SocketParWorker:
    """Stands for the listening socket in a worker's arguments; unpickled as a socket of the worker's own."""

    def __init__(self, host: str, port: int, family: int) -> None:
        self.host, self.port, self.family = host, port, family

    def __reduce__(self) -> tuple[Any, tuple[str, int, int]]:
        return _lier, (self.host, self.port, self.family)


def port_libre(host: str, port: int, family: int) -> int:
    """The port, checked free by a bind without SO_REUSEPORT: any process listening on it (another UnionFlow
    included, whose sockets would otherwise share the connections with ours) makes the start fail, as uvicorn's own
    bind does. Port 0: the one the system chose."""
    with socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            logging.getLogger("uvicorn.error").error("%s", exc)
            sys.exit(STARTUP_FAILURE)
        return int(probe.getsockname()[1])


def disponible(workers: int) -> bool:
    return workers > 1 and hasattr(socket, "SO_REUSEPORT")


def servir(config: Any) -> None:
    """Runs ``config``'s workers under uvicorn's supervisor, each on its own socket. The parent binds one first, never
    listening on it: the port is taken (or the start fails at once, as uvicorn's own bind), and the workers join its
    group."""
    from uvicorn.supervisors.multiprocess import Multiprocess

    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    port = port_libre(config.host, config.port, family)
    reserve = _lier(config.host, port, family)
    try:
        logging.getLogger("uvicorn.error").info(
            "Uvicorn running on %s://%s:%d, %d workers each on its own socket (Press CTRL+C to quit)",
            "https" if config.is_ssl else "http", config.host, port, config.workers)
        Multiprocess(config, sockets=[SocketParWorker(config.host, port, family)]).run()  # type: ignore[list-item]
    except KeyboardInterrupt:
        pass
    finally:
        reserve.close()
