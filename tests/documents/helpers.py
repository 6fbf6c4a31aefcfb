from __future__ import annotations

import io
import zipfile
from typing import Any

import httpx

PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40
ELF_BYTES = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 200
MZ_BYTES = b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 200


def docx_bytes(*, macro: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
        if macro:
            archive.writestr("word/vbaProject.bin", b"\x00macro")
    return buffer.getvalue()


def plain_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("virus.exe", ELF_BYTES)
    return buffer.getvalue()


async def upload(client: httpx.AsyncClient, headers: dict[str, str], content: bytes, filename: str = "recu.pdf",
                 mime: str = "application/pdf", **fields: Any) -> httpx.Response:
    data = {"description": "Reçu de cotisation", "typeDocument": "RECU", **fields}
    return await client.post("/api/documents/upload", headers=headers, data=data,
                             files={"file": (filename, content, mime)})
