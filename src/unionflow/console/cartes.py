"""Tables readable on a 360 px phone: each body cell is given its column's header as ``data-label``.

Below 640 px the stylesheet shows every row as a card, each cell a line « header: value » (``td::before`` reads
``data-label``), so no table scrolls sideways and the amounts and action buttons stay on screen. The labels are
copied from the table's own ``<thead>`` when the page is rendered, so every table of every screen, present or
added later, becomes cards without its template repeating each header on each cell. A cell that already has a
``data-label`` keeps it; a header cell's ``colspan`` covers as many body cells; a body cell spanning several
columns gets none.
"""

from __future__ import annotations

import re
from html import unescape

from markupsafe import escape

TABLE = re.compile(r"<table\b.*?</table>", re.S)
THEAD = re.compile(r"<thead\b.*?</thead>", re.S)
TBODY = re.compile(r"(<tbody\b.*?</tbody>)", re.S)
ROW = re.compile(r"<tr\b.*?</tr>", re.S)
HEAD_CELL = re.compile(r"<th\b([^>]*)>(.*?)</th>", re.S)
BODY_CELL = re.compile(r"<(td|th)\b([^>]*)>")
COLSPAN = re.compile(r'colspan="(\d+)"')
TAG = re.compile(r"<[^>]+>")


def _span(attributes: str) -> int:
    found = COLSPAN.search(attributes)
    return max(1, int(found.group(1))) if found else 1


def _headers(thead: str) -> list[str]:
    labels: list[str] = []
    for attributes, inner in HEAD_CELL.findall(thead):
        text = " ".join(unescape(TAG.sub(" ", inner)).split())
        labels.extend([text] * _span(attributes))
    return labels


def _row(row: str, labels: list[str]) -> str:
    column = 0

    def label(cell: re.Match[str]) -> str:
        nonlocal column
        tag, attributes = cell.group(1), cell.group(2)
        text = labels[column] if column < len(labels) else ""
        span = _span(attributes)
        column += span
        # A cell over several columns (« Rien à payer ») is a line of its own, under no one header.
        if tag != "td" or not text or span > 1 or "data-label=" in attributes:
            return cell.group(0)
        return f'<td data-label="{escape(text)}"{attributes}>'

    return BODY_CELL.sub(label, row)


def _table(table: re.Match[str]) -> str:
    html = table.group(0)
    thead = THEAD.search(html)
    if thead is None:
        return html
    labels = _headers(thead.group(0))
    if not any(labels):
        return html
    return TBODY.sub(lambda body: ROW.sub(lambda row: _row(row.group(0), labels), body.group(1)), html)


def etiqueter(html: str) -> str:
    """The page with a ``data-label`` on each body cell of each table that has a header row."""
    return TABLE.sub(_table, html) if "<thead" in html else html
