"""bench/lire_profil.py reads a flame graph's shares: each part at its outermost frames, never counted twice."""

from __future__ import annotations

from bench.lire_profil import parts


def _g(name: str, x: float, y: float, width: float) -> str:
    return (f"<g><title>{name} ({int(width * 10)} samples, {width}%)</title>"
            f'<rect x="{x}%" y="{y}" width="{width}%" height="15"/></g>')


def test_nested_and_recursive_frames_are_counted_once():
    svg = "".join([
        _g("all", 0, 52, 100),
        _g("RequestResponseCycle.run_asgi (uvicorn/protocols/http/httptools_impl.py:420)", 0, 68, 50),
        _g("GuardedRoute.get_route_handler.&lt;locals&gt;.handler (unionflow/core/routing.py:247)", 0, 84, 40),
        _g("solve_dependencies (fastapi/dependencies/utils.py:600)", 0, 100, 10),
        _g("solve_dependencies (fastapi/dependencies/utils.py:600)", 0, 116, 8),  # nested: not counted again
        _g("run_endpoint_function (fastapi/routing.py:381)", 10, 100, 30),
        _g("PreparedStatement.__do_execute (asyncpg/prepared_stmt.py:257)", 10, 116, 5),
        _g("PreparedStatement.__do_execute (asyncpg/prepared_stmt.py:257)", 20, 116, 5),  # beside: counted
        _g("Runner.run (asyncio/runners.py:118)", 50, 68, 50),  # idle loop: not a request
    ])
    request, shares = parts(svg)
    assert request == 50
    assert shares["endpoint and its dependencies"] == 80
    assert shares["  dependencies (token, session, settings)"] == 20
    assert shares["  endpoint function"] == 60
    assert shares["  asyncpg (bind, execute, fetch)"] == 20
    assert shares["commit"] == 0
