"""Reading generated PDFs as a person would: the text a viewer extracts, and the page rendered to pixels."""

from __future__ import annotations

import pypdfium2 as pdfium
from PIL import Image


def pdf_text(content: bytes) -> str:
    document = pdfium.PdfDocument(content)
    try:
        pages = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()
    # Viewers give non-breaking spaces (amount grouping) and CRLF line ends: normalise for assertions.
    return "\n".join(pages).replace("\u00a0", " ").replace("\r\n", "\n")


def pdf_page_image(content: bytes, page: int = 0, scale: float = 2.0) -> Image.Image:
    document = pdfium.PdfDocument(content)
    try:
        return document[page].render(scale=scale).to_pil()
    finally:
        document.close()


def pdf_image_count(content: bytes, page: int = 0) -> int:
    document = pdfium.PdfDocument(content)
    try:
        return sum(1 for obj in document[page].get_objects() if obj.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE)
    finally:
        document.close()
