"""Schemathesis hooks for ``make fuzz`` (loaded through ``SCHEMATHESIS_HOOKS=fuzz.hooks``).

``positive_data_acceptance_metier`` replaces schemathesis' ``positive_data_acceptance``: data the schema calls
valid may still be refused 400 when the refusal is one a schema cannot state, and says so by its problem type
(``regle-metier``: cross-field rule or reference-table value; ``invalid-state``: the record's state;
``invalid-grant``, ``invalid-reset-token``: credentials or a reset link that match nothing). A 400
``invalid-input`` on valid data still fails: that is the schema lying about what the server accepts.

Money is declared as a decimal string so generated clients type it as text, and the API also accepts a JSON
number there (the brief and older clients send ``2500``). That documented leniency is not a finding: negative
cases that only put a number in a money field are dropped (``filter_body`` while fuzzing; the coverage phase's
fixed cases are skipped by ``negative_data_rejection_tolerances``, which replaces ``negative_data_rejection``), every
other negative case is kept. Likewise a multipart field whose "wrong type" is a number, boolean or null: on the wire
it is the text ``0``/``true``/``null``, a valid string."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
import schemathesis
from schemathesis.core.failures import Failure
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

# Problem types (``https://unionflow.dev/problems/<slug>``) that refuse schema-valid data for a reason no schema
# can state; see docs/decisions.md "Contrat: operationIds et fuzz".
BEYOND_SCHEMA = frozenset({"regle-metier", "invalid-state", "invalid-grant", "invalid-reset-token",
                           # Control characters, refused in every text (the API description says so): a pattern
                           # on every string would clash with the fields' own patterns (docs/decisions.md, #21).
                           "caractere-controle",
                           # 422: the Idempotency-Key was already used with another body (state, not shape).
                           "idempotency-key-reused"})


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
# `python -m fuzz.run --strict`: a beyond-the-schema refusal of valid data fails like any other (no tolerance), so
# the run counts the rules the OpenAPI still does not state; `--census FILE` writes one JSON line per such refusal
# (role, operation, problem type, detail) for sorting them by operation and rule.
STRICT = os.environ.get("FUZZ_STRICT") == "1"
CENSUS = os.environ.get("FUZZ_CENSUS")


def _lenient(body: Any, key: str | None = None, padded: bool = True) -> bool:
    if isinstance(body, dict):
        return any(_lenient(value, name, padded) for name, value in body.items())
    if isinstance(body, list):
        return any(_lenient(value, key, padded) for value in body)
    if isinstance(body, str):
        return padded and body != body.strip()
    return key in MONEY and isinstance(body, int | float) and not isinstance(body, bool)


@schemathesis.hook
def filter_body(context: Any, body: Any) -> bool:
    # Padded texts are generated: a trimmed minimum is a pattern of the schema (core.schemas.trimmed_length_pattern),
    # so valid padded data is accepted; negative_data_rejection_tolerances still tolerates padded negatives (a text
    # over maxLength only by its spaces is accepted trimmed). Dropping them here filtered most of the examples of
    # a motif (its pattern allows spaces at both ends): schemathesis' filter_too_much health check failed.
    return not _lenient(body, padded=False)


def _problem_slug(response: Any) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    kind = body.get("type") if isinstance(body, dict) else None
    return kind.rsplit("/", 1)[-1] if isinstance(kind, str) else None


@schemathesis.check
def positive_data_acceptance_metier(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' positive-data check, except for the 400s whose problem type says "beyond the schema"."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except Failure:
        if response.status_code in (400, 422) and _problem_slug(response) in BEYOND_SCHEMA:
            _count(response, case)
            if not STRICT:
                return None
        raise


def _count(response: Any, case: Any) -> None:
    if not CENSUS:
        return
    body = response.json()
    line = {"role": os.environ.get("FUZZ_ROLE"), "method": case.operation.method.upper(),
            "path": case.operation.path, "status": response.status_code, "type": _problem_slug(response),
            "detail": str(body.get("detail", ""))[:300]}
    with open(CENSUS, "a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _multipart_scalars(case: Any) -> bool:
    """A multipart/form-data field is text on the wire: a number, boolean or null "in place of a string" arrives
    as its text (``0``, ``true``, ``null``), which the server reads as the string it is. Not observable, not a
    finding."""
    if not str(getattr(case, "media_type", "") or "").startswith("multipart/form-data"):
        return False
    body = case.body if isinstance(case.body, dict) else {}
    return any(value is None or isinstance(value, bool | int | float) for value in body.values())


@schemathesis.check
def negative_data_rejection_tolerances(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' negative-data check, except for bodies whose only "violation" is a documented leniency or
    cannot reach the server as such (multipart text)."""
    if _lenient(case.body) or _multipart_scalars(case):
        return None
    return negative_data_rejection(ctx, response, case)
