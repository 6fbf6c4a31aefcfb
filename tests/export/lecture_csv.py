"""Reading an export's CSV as a spreadsheet would."""

from __future__ import annotations

import csv
import io


def parse_csv(content: bytes) -> list[list[str]]:
    assert content.startswith(b"\xef\xbb\xbf"), "UTF-8 BOM expected"
    return list(csv.reader(io.StringIO(content[3:].decode("utf-8"), newline=""), delimiter=";"))


def by_first(rows: list[list[str]]) -> dict[str, list[str]]:
    return {r[0]: r for r in rows[1:]}
