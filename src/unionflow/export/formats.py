"""File formats of exports: CSV for French Excel and XLSX, written row by row from a database cursor.

CSV (docs/export-analytics.md): UTF-8 with a byte-order mark (Excel otherwise reads ANSI), ``;`` separator and
decimal comma (what French-locale Excel parses as numbers), CRLF line ends and RFC 4180 quoting. Text cells that
start with ``= + - @`` (or a tab / carriage return) are prefixed with ``'`` so a spreadsheet never evaluates
data typed by a member as a formula (CSV injection). XLSX cells are typed (numbers, dates) and every text
cell is stored as a string, never as a formula.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import IO, Any

import anyio
from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core.db import read_only_session
from unionflow.core.tableaux import FORMAT_DATE, FORMAT_DATE_HEURE, FORMAT_FCFA, XLSX_MEDIA_TYPE

BOM = "\ufeff"
CSV_DELIMITER = ";"
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
CENTIMES = Decimal("0.01")
# Rows fetched per round trip from the server-side cursor, and CSV bytes buffered before a chunk is sent.
BATCH_ROWS = 1000
CHUNK_BYTES = 64 * 1024
# Excel's sheet limit (1 048 576 rows) minus the header row.
XLSX_MAX_ROWS = 1_048_575


class FormatExport(StrEnum):
    CSV = "csv"
    XLSX = "xlsx"


class Kind(StrEnum):
    TEXT = "text"
    INT = "int"
    DECIMAL = "decimal"
    DATE = "date"
    DATETIME = "datetime"


@dataclass(frozen=True)
class Column:
    header: str
    kind: Kind = Kind.TEXT
    # Codes shown as French words (statuses, methods): the file is read by people, the API keeps the codes.
    labels: Mapping[str, str] | None = None

    def value(self, raw: Any) -> Any:
        if self.labels is not None and isinstance(raw, str):
            return self.labels.get(raw, raw)
        return raw


@dataclass(frozen=True)
class VentilationExport:
    """Totals by status instead of one grand total: the money collected apart from what was cancelled,
    refunded or never received. ``colonne``: index of the status code in a transformed row; ``groupes``: the
    label of each totals row, the status codes it sums and what the status column of that row says."""

    colonne: int
    groupes: Sequence[tuple[str, frozenset[str], str]]


@dataclass
class ExportPlan:
    """What the service decided: the scoped statement, its columns, and how many rows it had when audited."""

    name: str
    fmt: FormatExport
    columns: list[Column]
    statement: Select[Any]
    transform: Callable[[Sequence[Any]], Sequence[Any]]
    rows: int
    generated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    ventilation: VentilationExport | None = None

    @property
    def filename(self) -> str:
        return f"unionflow-{self.name}-{self.generated_at:%Y-%m-%d-%H%M}.{self.fmt.value}"

    @property
    def media_type(self) -> str:
        return "text/csv; charset=utf-8" if self.fmt is FormatExport.CSV else XLSX_MEDIA_TYPE


# A phone number in international form cannot be read as a formula: it keeps its "+" unprefixed.
PHONE = re.compile(r"^\+[0-9][0-9 ]{5,19}$")


def safe_text(value: str) -> str:
    if value.startswith(FORMULA_TRIGGERS) and not PHONE.match(value):
        return "'" + value
    return value


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def csv_cell(value: Any, kind: Kind) -> str:
    if value is None:
        return ""
    if kind is Kind.DECIMAL:
        return format(Decimal(value).quantize(CENTIMES), "f").replace(".", ",")
    if kind is Kind.INT:
        return str(int(value))
    if kind is Kind.DATE:
        return value.isoformat()
    if kind is Kind.DATETIME:
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return safe_text(_text(value))


def xlsx_value(value: Any, kind: Kind) -> Any:
    if value is None:
        return None
    if kind is Kind.DECIMAL:
        return Decimal(value).quantize(CENTIMES)
    if kind is Kind.INT:
        return int(value)
    if kind is Kind.DATE:
        return value
    if kind is Kind.DATETIME:
        # Excel has no time zones: UTC wall-clock time, as the column header says.
        return value.astimezone(UTC).replace(tzinfo=None)
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    return ILLEGAL_CHARACTERS_RE.sub("", _text(value))


async def stream_rows(sessionmaker: async_sessionmaker[AsyncSession], statement: Select[Any]) -> AsyncIterator[Any]:
    """Rows through a server-side cursor (``yield_per``): memory stays flat however many rows there are.

    The request's own session is already closed when the body is sent, so the body reads on its own one."""
    async with read_only_session(sessionmaker) as session:
        result = await session.stream(statement.execution_options(yield_per=BATCH_ROWS))
        async for partition in result.partitions():
            for row in partition:
                yield row


async def csv_body(plan: ExportPlan, sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=CSV_DELIMITER, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    buffer.write(BOM)
    writer.writerow([safe_text(c.header) for c in plan.columns])
    async for row in stream_rows(sessionmaker, plan.statement):
        writer.writerow([csv_cell(c.value(v), c.kind) for v, c in zip(plan.transform(row), plan.columns, strict=True)])
        if buffer.tell() >= CHUNK_BYTES:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8")


NUMBER_FORMATS = {Kind.DECIMAL: FORMAT_FCFA, Kind.INT: "0", Kind.DATE: FORMAT_DATE, Kind.DATETIME: FORMAT_DATE_HEURE}
# Excel column widths (characters) by kind, before the header's own length is taken into account.
WIDTHS = {Kind.TEXT: 18, Kind.INT: 8, Kind.DECIMAL: 16, Kind.DATE: 12, Kind.DATETIME: 17}


def _xlsx_row(sheet: Any, values: Iterable[Any], columns: Sequence[Column]) -> list[Any]:
    from openpyxl.cell import WriteOnlyCell

    cells = []
    for value, column in zip(values, columns, strict=True):
        cell = WriteOnlyCell(sheet, value=xlsx_value(column.value(value), column.kind))
        if column.kind is Kind.TEXT and cell.data_type == "f":
            cell.data_type = "s"  # text that looks like a formula stays text
        elif column.kind in NUMBER_FORMATS:
            cell.number_format = NUMBER_FORMATS[column.kind]
        cells.append(cell)
    return cells


def _xlsx_header(sheet: Any, columns: Sequence[Column]) -> list[Any]:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font, PatternFill

    cells = []
    for column in columns:
        cell = WriteOnlyCell(sheet, value=column.header)
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor="1F4E78")
        cell.alignment = Alignment(vertical="center", wrap_text=True)
        cells.append(cell)
    return cells


def _xlsx_totals(sheet: Any, columns: Sequence[Column], last_row: int) -> list[Any]:
    """Bold totals under the money columns; SUBTOTAL so that filtering the sheet re-totals what is shown."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    cells = []
    for i, column in enumerate(columns, start=1):
        value: Any = None
        if i == 1:
            value = "Total"
        elif column.kind is Kind.DECIMAL and last_row >= 2:
            letter = get_column_letter(i)
            value = f"=SUBTOTAL(109,{letter}2:{letter}{last_row})"
        cell = WriteOnlyCell(sheet, value=value)
        cell.font = Font(bold=True)
        if column.kind is Kind.DECIMAL:
            cell.number_format = FORMAT_FCFA
        cells.append(cell)
    return cells


class Sommes:
    """Per totals row of the plan's ``ventilation``: the count and the sum of every money column, as the rows
    stream by (exact Decimals; the rows below the data carry values, not formulas, so that what Excel shows is
    what the API computed)."""

    def __init__(self, plan: ExportPlan) -> None:
        self.plan = plan
        self.montants = [i for i, c in enumerate(plan.columns) if c.kind is Kind.DECIMAL]
        groupes = plan.ventilation.groupes if plan.ventilation else []
        self.totaux = [[Decimal(0)] * len(self.montants) for _ in groupes]
        self.nombres = [0] * len(groupes)

    def ajouter(self, values: Sequence[Any]) -> None:
        if self.plan.ventilation is None:
            return
        statut = values[self.plan.ventilation.colonne]
        for g, (_, statuts, _) in enumerate(self.plan.ventilation.groupes):
            if statut in statuts:
                self.nombres[g] += 1
                for k, i in enumerate(self.montants):
                    self.totaux[g][k] += Decimal(values[i] or 0)

    def lignes(self) -> list[list[Any]]:
        """One row per group: its label first, "<what> — n ligne(s)" in the status column, the sums."""
        assert self.plan.ventilation is not None
        rows = []
        for g, (libelle, _, quoi) in enumerate(self.plan.ventilation.groupes):
            row: list[Any] = [None] * len(self.plan.columns)
            row[0] = libelle
            row[self.plan.ventilation.colonne] = f"{quoi} — {self.nombres[g]} ligne(s)"
            for k, i in enumerate(self.montants):
                row[i] = self.totaux[g][k].quantize(CENTIMES)
            rows.append(row)
        return rows


def _xlsx_total_row(sheet: Any, columns: Sequence[Column], values: Sequence[Any]) -> list[Any]:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    cells = []
    for value, column in zip(values, columns, strict=True):
        cell = WriteOnlyCell(sheet, value=value)
        cell.font = Font(bold=True)
        if column.kind is Kind.DECIMAL:
            cell.number_format = FORMAT_FCFA
        cells.append(cell)
    return cells


async def xlsx_body(plan: ExportPlan, sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[bytes]:
    """openpyxl's write-only mode spills rows to a temporary file as they are appended; the zip is assembled
    at the end (in a worker thread) and sent in chunks."""
    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(plan.name[:31])
    # Write-only sheets take their layout before the first row.
    for i, column in enumerate(plan.columns, start=1):
        sheet.column_dimensions[get_column_letter(i)].width = max(WIDTHS[column.kind], len(column.header) + 2)
    sheet.freeze_panes = "A2"
    sheet.append(_xlsx_header(sheet, plan.columns))
    rows = 1
    sommes = Sommes(plan)
    async for row in stream_rows(sessionmaker, plan.statement):
        values = plan.transform(row)
        sheet.append(_xlsx_row(sheet, values, plan.columns))
        sommes.ajouter(values)
        rows += 1
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(plan.columns))}{rows}"
    if plan.ventilation is not None:
        for ligne in sommes.lignes():
            sheet.append(_xlsx_total_row(sheet, plan.columns, ligne))
    elif any(c.kind is Kind.DECIMAL for c in plan.columns) and rows < XLSX_MAX_ROWS:
        sheet.append(_xlsx_totals(sheet, plan.columns, rows))
    with tempfile.TemporaryFile() as spool:
        await anyio.to_thread.run_sync(workbook.save, spool)
        spool.seek(0)
        while chunk := await anyio.to_thread.run_sync(_read, spool):
            yield chunk


def _read(handle: IO[bytes]) -> bytes:
    return handle.read(CHUNK_BYTES)
