"""`unionflow serve --workers N`: a listening socket per worker in one SO_REUSEPORT group (core/listening.py).
The process-level behaviour (two workers both serving, SIGTERM drain) is in tests/cli/test_serve.py."""

from __future__ import annotations

import pickle
import select
import socket

import pytest

from unionflow.core import listening

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="no SO_REUSEPORT on this platform")


def test_each_worker_unpickles_a_socket_of_its_own_and_the_kernel_spreads_connections():
    port = listening.port_libre("127.0.0.1", 0, socket.AF_INET)
    reserve = listening._lier("127.0.0.1", port, socket.AF_INET)  # the parent's: bound, never listening
    spec = listening.SocketParWorker("127.0.0.1", port, socket.AF_INET)
    workers = [pickle.loads(pickle.dumps(spec)) for _ in range(2)]  # what uvicorn's spawn does per worker
    clients: list[socket.socket] = []
    try:
        assert all(isinstance(w, socket.socket) and w.getsockname()[1] == port for w in workers)
        assert workers[0].fileno() != workers[1].fileno()
        for w in workers:
            w.listen(64)
        clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(40)]
        accepted = [0, 0]
        while sum(accepted) < len(clients):
            ready, _, _ = select.select(workers, [], [], 5)
            assert ready, f"connections lost: {accepted}"
            for w in ready:
                w.accept()[0].close()
                accepted[workers.index(w)] += 1
        # By a hash of each connection's addresses: both sockets get a share, none gets them all.
        assert all(n > 0 for n in accepted), accepted
    finally:
        for s in [*clients, *workers, reserve]:
            s.close()


def test_a_port_someone_listens_on_stops_the_start_as_uvicorn_would():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(SystemExit) as exit_:
            listening.port_libre("127.0.0.1", taken.getsockname()[1], socket.AF_INET)
        assert exit_.value.code == listening.STARTUP_FAILURE
    finally:
        taken.close()


def test_a_second_unionflow_on_the_port_is_refused_not_joined():
    """Our own sockets carry SO_REUSEPORT: without the check, a second server would silently share the traffic."""
    port = listening.port_libre("127.0.0.1", 0, socket.AF_INET)
    first = listening._lier("127.0.0.1", port, socket.AF_INET)
    first.listen(1)
    try:
        with pytest.raises(SystemExit):
            listening.port_libre("127.0.0.1", port, socket.AF_INET)
    finally:
        first.close()
