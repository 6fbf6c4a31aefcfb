"""What a file really is (magic bytes, not the client's name or Content-Type), and safe names."""

from __future__ import annotations

import codecs
import os
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from unionflow.core.errors import InvalidInput, RegleMetier

HEAD_BYTES = 8192


@dataclass(frozen=True)
class FileKind:
    mime: str
    extensions: tuple[str, ...]  # first one is canonical


PDF = FileKind("application/pdf", (".pdf",))
PNG = FileKind("image/png", (".png",))
JPEG = FileKind("image/jpeg", (".jpg", ".jpeg"))
GIF = FileKind("image/gif", (".gif",))
WEBP = FileKind("image/webp", (".webp",))
DOCX = FileKind("application/vnd.openxmlformats-officedocument.wordprocessingml.document", (".docx",))
XLSX = FileKind("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", (".xlsx",))
ODT = FileKind("application/vnd.oasis.opendocument.text", (".odt",))
ODS = FileKind("application/vnd.oasis.opendocument.spreadsheet", (".ods",))
TEXT = FileKind("text/plain; charset=utf-8", (".txt",))
CSV = FileKind("text/csv; charset=utf-8", (".csv",))
# Voice notes (messagerie): what phones record (WhatsApp-style Opus in Ogg, iOS M4A, Android AAC/MP3, WAV).
OGG = FileKind("audio/ogg", (".ogg", ".opus", ".oga"))
MP3 = FileKind("audio/mpeg", (".mp3",))
M4A = FileKind("audio/mp4", (".m4a",))
AAC = FileKind("audio/aac", (".aac",))
WAV = FileKind("audio/wav", (".wav",))

ALLOWED = (PDF, PNG, JPEG, GIF, WEBP, DOCX, XLSX, ODT, ODS, TEXT, CSV, OGG, MP3, M4A, AAC, WAV)
# What the OpenAPI declares for the uploaded part (multipart ``encoding.file.contentType``).
ACCEPTED_MEDIA_TYPES = tuple(kind.mime.split(";")[0] for kind in ALLOWED)
# ISO base media brands of audio-only recordings (M4A); video brands are refused.
_M4A_BRANDS = (b"M4A ", b"M4B ", b"mp42", b"isom", b"iso2", b"dash", b"3gp4", b"3gp5")
KNOWN_EXTENSIONS = {ext for kind in ALLOWED for ext in kind.extensions}

_EXECUTABLE_MAGIC = (
    b"\x7fELF",  # Linux
    b"MZ",  # Windows PE / DOS
    b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe",  # Mach-O
    b"#!",  # scripts
)
_ODF = {ODT.mime: ODT, ODS.mime: ODS}


# Executable content inside office packages, whatever the parts are called. ODF: StarBasic modules and scripts
# live under Basic/ and Scripts/. OOXML: a VBA project, Excel 4.0 macro sheets and ActiveX controls are declared
# by their content type in [Content_Types].xml and by the relationship pointing at them, even when the part
# itself is renamed (word/vbaProject.bin → word/image.png). Signed macros and toolbars carry the same markers.
_ODF_CODE_FOLDERS = ("basic/", "scripts/")
_OOXML_CODE_MARKERS = (b"vbaproject", b"macroenabled", b"macrosheet", b"activex", b"vbadata", b"attachedtoolbars",
                       b"ms-office.vba", b"keymapcustomizations")
_DECLARATION_LIMIT = 1024 * 1024


def _declarations(archive: zipfile.ZipFile, name: str) -> bytes:
    """The first MiB of a package declaration part, lower case (a zip bomb never gets inflated further)."""
    with archive.open(name) as part:
        return part.read(_DECLARATION_LIMIT).lower()


def _refuse_macros(archive: zipfile.ZipFile, names: set[str], odf: bool) -> None:
    lowered = [n.lower() for n in names]
    found = any(n.startswith(_ODF_CODE_FOLDERS) for n in lowered) if odf else False
    found = found or any("vbaproject" in n or "/activex/" in n for n in lowered)
    if not odf and not found:
        declarations = [n for n in names if n == "[Content_Types].xml" or n.endswith(".rels")]
        found = any(marker in _declarations(archive, n) for n in declarations for marker in _OOXML_CODE_MARKERS)
    if found:
        raise RegleMetier("Document bureautique refusé: il contient des macros ou des contrôles actifs "
                           "(StarBasic, VBA, ActiveX); enregistrez-le sans macros (DOCX, XLSX, ODT, ODS)")


def _zip_kind(path: Path) -> FileKind:
    """Office files are ZIP containers: look inside for the parts that make them what they claim, and for
    executable content (macros), which is refused whatever the parts are named."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                declared = archive.read("mimetype")[:100].decode("ascii", "replace").strip()
                if declared in _ODF:
                    _refuse_macros(archive, names, odf=True)
                    return _ODF[declared]
            if "[Content_Types].xml" in names:
                _refuse_macros(archive, names, odf=False)
                if "word/document.xml" in names:
                    return DOCX
                if "xl/workbook.xml" in names:
                    return XLSX
    except (zipfile.BadZipFile, OSError, KeyError) as exc:
        raise InvalidInput("Fichier ZIP/Office illisible ou corrompu") from exc
    raise RegleMetier("Archive refusée: seuls les documents DOCX, XLSX, ODT et ODS (sans macros) sont acceptés")


def _is_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return all(ch >= 0x20 or ch in (0x09, 0x0A, 0x0D, 0x0C) for ch in head)


def detect(path: Path, head: bytes, extension: str) -> FileKind:
    """The type of the stored bytes, from an allowlist; anything else (executables first) is refused."""
    if any(head.startswith(magic) for magic in _EXECUTABLE_MAGIC):
        raise RegleMetier("Fichier exécutable refusé, quel que soit son nom")
    if head.startswith(b"%PDF-"):
        return PDF
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head.startswith((b"GIF87a", b"GIF89a")):
        return GIF
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return WEBP
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(path)
    audio = _audio_kind(head)
    if audio is not None:
        return audio
    if head and _is_text(head):
        return CSV if extension == ".csv" else TEXT
    raise RegleMetier("Type de fichier non autorisé (PDF, PNG, JPEG, GIF, WebP, DOCX, XLSX, ODT, ODS, "
                       "texte, CSV, audio OGG/Opus, MP3, M4A/AAC, WAV)")


def _audio_kind(head: bytes) -> FileKind | None:
    if head.startswith(b"OggS"):
        return OGG
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return WAV
    if head[4:8] == b"ftyp" and head[8:12] in _M4A_BRANDS:
        return M4A
    if head.startswith(b"ID3"):
        return MP3
    if len(head) < 3 or head[0] != 0xFF:
        return None
    if head[1] & 0xF6 == 0xF0:
        return AAC  # ADTS: 12-bit sync, layer 00
    # An MPEG-1/2/2.5 Layer III frame header with a real bitrate and sample rate (so that, e.g., a UTF-16
    # byte-order mark is not taken for a frame).
    version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
    if head[1] & 0xE0 == 0xE0 and version != 1 and layer == 1 and (head[2] >> 4) not in (0, 15) \
            and (head[2] >> 2) & 3 != 3:
        return MP3
    return None


def sanitize_filename(raw: str | None) -> str:
    """The client's name as harmless metadata: last path segment, printable, no leading dots, bounded."""
    name = unicodedata.normalize("NFC", raw or "")
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable() and ch not in '<>:"|?*')
    name = name.strip().lstrip(".").strip()
    if len(name) > 200:
        stem, ext = os.path.splitext(name)
        name = stem[: 200 - len(ext[:20])] + ext[:20]
    return name or "document"


def named_for(name: str, kind: FileKind) -> str:
    """Keep the name when its extension matches the content; add the canonical one when it has none;
    refuse a misleading extension (``photo.exe`` holding a PNG, ``facture.pdf`` holding a ZIP...)."""
    stem, ext = os.path.splitext(name)
    ext = ext.lower()
    if ext in kind.extensions:
        return name
    if not ext or not stem:
        return (stem or name) + kind.extensions[0]
    raise RegleMetier(f"L'extension {ext} ne correspond pas au contenu du fichier ({kind.mime.split(';')[0]})")


def content_disposition(filename: str) -> str:
    """RFC 6266: an ASCII fallback plus the exact UTF-8 name in ``filename*``."""
    ascii_name = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode("ascii")
    ascii_name = "".join(ch if ch.isprintable() and ch not in '"\\;' else "_" for ch in ascii_name) or "document"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename, safe='')}"
