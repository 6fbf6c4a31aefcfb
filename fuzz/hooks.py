"""Schemathesis hooks for ``make fuzz`` (loaded through ``SCHEMATHESIS_HOOKS=fuzz.hooks``).

Money is declared as a decimal string so generated clients type it as text, and the API also accepts a JSON
number there (the brief and older clients send ``2500``). That documented leniency is not a finding: negative
cases that only put a number in a money field are dropped, every other negative case is kept."""

from __future__ import annotations

import os
from typing import Any

import httpx
import schemathesis


def _money_fields() -> frozenset[str]:
    schema = httpx.get(os.environ["FUZZ_OPENAPI_URL"], timeout=30).json()
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if "decimal" in (prop.get("format"), *(b.get("format") for b in prop.get("anyOf", []))):
                    names.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return frozenset(names)


MONEY = _money_fields()


def _lenient(body: Any, key: str | None = None) -> bool:
    if isinstance(body, dict):
        return any(_lenient(value, name) for name, value in body.items())
    if isinstance(body, list):
        return any(_lenient(value, key) for value in body)
    if isinstance(body, str):
        return body != body.strip()
    return key in MONEY and isinstance(body, int | float) and not isinstance(body, bool)


@schemathesis.hook
def filter_body(context: Any, body: Any) -> bool:
    return not _lenient(body)
