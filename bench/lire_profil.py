"""``python -m bench.lire_profil <flame graph.svg>...``: what share of a served request each part takes, read from
a flame graph that ``BENCH_PROFIL`` wrote (py-spy's SVG: an icicle, the root on top). Each part is counted at its
outermost frames only, so nesting and recursion are not counted twice. docs/performance.md reports these shares
beside the goals they explain."""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Callable

Frame = tuple[float, float, float, str]  # x %, y, width %, name
_G = re.compile(r"<g>(.*?)</g>", re.S)
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_RECT = re.compile(r'<rect x="([\d.]+)%" y="([\d.]+)" width="([\d.]+)%"')
_SAMPLES = re.compile(r"(.*) \((\d[\d,]*) samples?, ([\d.]+)%\)", re.S)


def _starts(*prefixes: str) -> Callable[[str], bool]:
    return lambda name: name.startswith(prefixes)


PARTS: dict[str, Callable[[str], bool]] = {
    "endpoint and its dependencies": _starts("GuardedRoute.get_route_handler.<locals>.handler"),
    "  dependencies (token, session, settings)": _starts("solve_dependencies"),
    "  endpoint function": _starts("run_endpoint_function"),
    "SQLAlchemy statement execution": _starts("Session.execute", "AsyncSession.execute", "Connection.execute",
                                              "AsyncConnection.execute", "Session.flush", "AsyncSession.flush"),
    "  SQL compilation and cache keys": _starts("HasCacheKey._generate_cache_key", "SQLCompiler.__init__",
                                                "ClauseElement._compile_w_cache", "Compiled.__init__"),
    "  asyncpg (bind, execute, fetch)": _starts("PreparedStatement.__do_execute", "PreparedStatement.__bind_execute",
                                                "Connection._execute (asyncpg", "Connection.fetch"),
    "commit": _starts("AsyncSession.commit", "Session.commit", "AsyncConnection.commit"),
    "response serialisation": _starts("serialize_response", "_prepare_response_content", "jsonable_encoder"),
}
REQUEST = _starts("RequestResponseCycle.run_asgi")


def frames(svg: str) -> list[Frame]:
    found = []
    for group in _G.findall(svg):
        title, rect = _TITLE.search(group), _RECT.search(group)
        match = _SAMPLES.match(html.unescape(title.group(1))) if title else None
        if rect and match:
            found.append((float(rect.group(1)), float(rect.group(2)), float(rect.group(3)), match.group(1)))
    return found


def outermost(found: list[Frame], wanted: Callable[[str], bool]) -> float:
    """The width of the matching frames that no other matching frame contains (above it, over its x range)."""
    hits = [f for f in found if wanted(f[3])]
    return sum(h[2] for h in hits if not any(
        o is not h and o[1] < h[1] and o[0] <= h[0] + 1e-9 and h[0] + h[2] <= o[0] + o[2] + 1e-9 for o in hits))


def parts(svg: str) -> tuple[float, dict[str, float]]:
    """The request's share of all samples, and each part's share of the request, in per cent."""
    found = frames(svg)
    request = outermost(found, REQUEST)
    return request, {label: 100 * outermost(found, wanted) / request if request else 0.0
                     for label, wanted in PARTS.items()}


def main(paths: list[str]) -> None:
    for path in paths:
        with open(path, encoding="utf-8") as svg:
            request, shares = parts(svg.read())
        print(f"{path}: serving requests {request:.1f} % of the samples")
        for label, share in shares.items():
            print(f"  {label:44s} {share:4.0f} % of a request")


if __name__ == "__main__":
    main(sys.argv[1:])
