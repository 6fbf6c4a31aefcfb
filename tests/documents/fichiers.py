"""File contents for upload tests: real signatures of PDF, PNG, executables, and real OOXML/ODF packages."""

from __future__ import annotations

import io
import zipfile

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


CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>{extra}'
    '<Override PartName="/{main}" ContentType="{main_type}"/></Types>')


ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="{main}"/></Relationships>')


def ooxml_package(kind: str = "docx", *, extra_types: str = "", parts: dict[str, bytes] | None = None) -> bytes:
    """A real OOXML package (content types, root relationships, main part), plus any extra parts."""
    main, main_type = {
        "docx": ("word/document.xml",
                 "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"),
        "xlsx": ("xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"),
    }[kind]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES.format(extra=extra_types, main=main,
                                                                     main_type=main_type))
        archive.writestr("_rels/.rels", ROOT_RELS.format(main=main))
        archive.writestr(main, "<document/>")
        for name, content in (parts or {}).items():
            archive.writestr(name, content)
    return buffer.getvalue()


OLE_HEADER = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


def odf_package(mime: str = "application/vnd.oasis.opendocument.text", *,
                parts: dict[str, bytes] | None = None) -> bytes:
    """A real ODF package: the uncompressed mimetype first, then manifest and content."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), mime, compress_type=zipfile.ZIP_STORED)
        manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
                    'opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" '
                    f'manifest:media-type="{mime}"/></manifest:manifest>')
        archive.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", "<office:document-content/>", compress_type=zipfile.ZIP_DEFLATED)
        for name, content in (parts or {}).items():
            archive.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
