"""The settings table of docs/operations.md, generated from ``Settings`` so the two cannot drift.

``python -m unionflow.config_doc docs/operations.md`` rewrites the table between the markers: names and defaults
come from ``config.Settings``; each meaning is kept from the document (or taken from the field's description);
a new setting without one is marked ``À DOCUMENTER`` and tests/test_config_doc.py fails until it is written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from unionflow.config import Settings

BEGIN = "<!-- settings:begin (python -m unionflow.config_doc docs/operations.md) -->"
END = "<!-- settings:end -->"
MISSING = "À DOCUMENTER"
HEADER = ["| Variable | Default | Meaning |", "|---|---|---|"]


def env_name(field: str) -> str:
    prefix = str(Settings.model_config.get("env_prefix", ""))
    return f"{prefix}{field}".upper()


def default_text(value: Any) -> str:
    if value is None:
        return "(vide)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | dict):
        return f"`{json.dumps(value)}`"
    return f"`{value}`"


def documented(text: str) -> dict[str, tuple[str, str]]:
    """``{VARIABLE: (default, meaning)}`` as the document states them now."""
    rows: dict[str, tuple[str, str]] = {}
    if BEGIN not in text or END not in text:
        return rows
    table = text.split(BEGIN, 1)[1].split(END, 1)[0]
    for line in table.strip().splitlines()[len(HEADER):]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 3:
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def render(previous: dict[str, tuple[str, str]]) -> str:
    lines = list(HEADER)
    for name, field in Settings.model_fields.items():
        variable = env_name(name)
        meaning = previous.get(variable, ("", ""))[1] or field.description or MISSING
        default = default_text(field.get_default(call_default_factory=True))
        lines.append(f"| `{variable}` | {default} | {meaning} |")
    return "\n".join(lines)


def regenerate(text: str) -> str:
    before, rest = text.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    return f"{before}{BEGIN}\n{render(documented(text))}\n{END}{after}"


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/operations.md")
    path.write_text(regenerate(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{path}: {len(Settings.model_fields)} settings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
