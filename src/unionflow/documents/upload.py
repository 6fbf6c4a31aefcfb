"""Streaming multipart reception: the file part goes straight to a temporary file, hashed on the way,
and reception stops as soon as it passes the size limit. Nothing is held in memory but one chunk."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import anyio
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from unionflow.core.errors import CaractereControle, InvalidInput, PayloadTooLarge
from unionflow.core.middleware import control_character
from unionflow.documents.content import HEAD_BYTES

FORM_OVERHEAD = 64 * 1024  # boundaries, part headers and the small text fields
MAX_FIELD_BYTES = 4096
MAX_PARTS = 10
# The form's text fields (documents/router.py states them, with additionalProperties false): like a JSON body,
# the form refuses a field it does not know rather than dropping it silently.
FIELDS = frozenset({"description", "typeDocument", "visibilite", "organisationId"})


@dataclass
class ReceivedFile:
    path: Path
    filename: str
    size: int = 0
    head: bytes = b""
    sha256: str = ""


@dataclass
class UploadForm:
    fields: dict[str, str] = field(default_factory=dict)
    file: ReceivedFile | None = None

    def discard(self) -> None:
        if self.file is not None:
            with contextlib.suppress(FileNotFoundError):
                self.file.path.unlink()


class _Receiver:
    def __init__(self, max_bytes: int, temp_dir: Path) -> None:
        self.max_bytes = max_bytes
        self.temp_dir = temp_dir
        self.form = UploadForm()
        self.parts = 0
        self._header_name = b""
        self._header_value = b""
        self._disposition = b""
        self._name = ""
        self._is_file = False
        self._buffer = bytearray()
        self._out: IO[bytes] | None = None
        self._digest = hashlib.sha256()
        self._head = bytearray()
        self._pending: list[bytes] = []
        self._file_done = False

    def on_part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise InvalidInput("Trop de champs dans le formulaire")
        self._disposition = b""
        self._buffer = bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        if self._header_name.lower() == b"content-disposition":
            self._disposition = self._header_value
        self._header_name = b""
        self._header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._disposition)
        self._name = options.get(b"name", b"").decode("utf-8", "replace")
        self._is_file = b"filename" in options
        if self._is_file:
            if self._name != "file" or self.form.file is not None:
                raise InvalidInput("Un seul fichier est attendu, dans le champ `file`")
            fd, path = tempfile.mkstemp(dir=self.temp_dir, prefix="upload-")
            self._out = os.fdopen(fd, "wb")
            self.form.file = ReceivedFile(path=Path(path), filename=options[b"filename"].decode("utf-8", "replace"))
        elif self._name not in FIELDS:
            raise InvalidInput(f"Champ inconnu dans le formulaire: {self._name[:50]!r} (attendus: file, "
                               f"{', '.join(sorted(FIELDS))})")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if not self._is_file:
            if len(self._buffer) + len(chunk) > MAX_FIELD_BYTES:
                raise InvalidInput(f"Champ {self._name} trop long")
            self._buffer.extend(chunk)
            return
        assert self._out is not None and self.form.file is not None
        self.form.file.size += len(chunk)
        if self.form.file.size > self.max_bytes:
            raise PayloadTooLarge(f"Fichier trop volumineux (maximum {self.max_bytes} octets)")
        if len(self._head) < HEAD_BYTES:
            self._head.extend(chunk[: HEAD_BYTES - len(self._head)])
        self._digest.update(chunk)
        self._pending.append(chunk)

    def on_part_end(self) -> None:
        if self._is_file:
            assert self.form.file is not None
            self._file_done = True
            self.form.file.head = bytes(self._head)
            self.form.file.sha256 = self._digest.hexdigest()
        elif self._name:
            text = self._buffer.decode("utf-8", "replace")
            if (character := control_character(text)) is not None:
                # As in JSON bodies (core/routing.py): PostgreSQL cannot store NUL, no one types the others.
                raise CaractereControle(f"Caractère de contrôle interdit ({character}) dans le champ {self._name}")
            self.form.fields[self._name] = text.strip()

    def _write_pending(self) -> None:
        if self._out is None:
            return
        for chunk in self._pending:
            self._out.write(chunk)
        self._pending.clear()
        if self._file_done:
            self._out.close()
            self._out = None

    async def flush(self) -> None:
        # Disk writes leave the event loop; the parser callbacks above only queue chunks.
        if self._pending or self._file_done:
            await anyio.to_thread.run_sync(self._write_pending)

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


async def receive_upload(request: Request, max_bytes: int, temp_dir: Path) -> UploadForm:
    """Parse ``multipart/form-data`` from the request stream. 413 before reading when Content-Length
    already says too much, 413 as soon as the file part passes ``max_bytes`` otherwise."""
    content_type, params = parse_options_header(request.headers.get("content-type", ""))
    if content_type != b"multipart/form-data" or b"boundary" not in params:
        raise InvalidInput("Corps attendu: multipart/form-data avec un champ `file`")
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = int(declared)
        except ValueError as exc:
            raise InvalidInput("Content-Length invalide") from exc
        if length > max_bytes + FORM_OVERHEAD:
            raise PayloadTooLarge(f"Fichier trop volumineux (maximum {max_bytes} octets)")
    await anyio.Path(temp_dir).mkdir(parents=True, exist_ok=True)
    receiver = _Receiver(max_bytes, temp_dir)
    parser = MultipartParser(params[b"boundary"], {
        "on_part_begin": receiver.on_part_begin, "on_part_data": receiver.on_part_data,
        "on_part_end": receiver.on_part_end, "on_header_field": receiver.on_header_field,
        "on_header_value": receiver.on_header_value, "on_header_end": receiver.on_header_end,
        "on_headers_finished": receiver.on_headers_finished,
    })
    try:
        async for chunk in request.stream():
            parser.write(chunk)
            await receiver.flush()
        parser.finalize()
        await receiver.flush()
    except BaseException as exc:
        receiver.close()
        receiver.form.discard()
        if isinstance(exc, FormParserError):
            raise InvalidInput("Formulaire multipart invalide") from exc
        raise
    if receiver.form.file is None or not receiver.form.file.sha256:
        receiver.form.discard()
        raise InvalidInput("Champ `file` manquant ou incomplet")
    if receiver.form.file.size == 0:
        receiver.form.discard()
        raise InvalidInput("Fichier vide")
    return receiver.form
