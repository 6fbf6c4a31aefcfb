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
from typing import Any


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


def disponible(workers: int) -> bool:
    return workers > 1 and hasattr(socket, "SO_REUSEPORT")


def servir(config: Any) -> None:
    """Runs ``config``'s workers under uvicorn's supervisor, each on its own socket. The parent binds one first, never
    listening on it: the port is taken (or the start fails at once, as uvicorn's own bind), and the workers join its
    group."""
    from uvicorn.supervisors.multiprocess import Multiprocess

    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    reserve = _lier(config.host, config.port, family)
    try:
        port = reserve.getsockname()[1]
        logging.getLogger("uvicorn.error").info(
            "Uvicorn running on %s://%s:%d, %d workers each on its own socket (Press CTRL+C to quit)",
            "https" if config.is_ssl else "http", config.host, port, config.workers)
        Multiprocess(config, sockets=[SocketParWorker(config.host, port, family)]).run()  # type: ignore[list-item]
    except KeyboardInterrupt:
        pass
    finally:
        reserve.close()
