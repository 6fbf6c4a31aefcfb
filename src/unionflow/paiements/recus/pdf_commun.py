"""What every receipt PDF shares (payment receipt, refund receipt): the A5 page with the packaged Unicode font,
the text writer, and the heading — the organisation's logo, name and address, and the verification QR code when
there is one."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable

from fpdf import FPDF

from unionflow.core.tableaux import FONTS

log = logging.getLogger("unionflow.recus")
Ecrire = Callable[..., None]


def document_a5(titre: str, organisation: str) -> tuple[FPDF, Ecrire]:
    """An A5 portrait page (the size a treasurer prints and hands out) and a writer of full-width paragraphs."""
    pdf = FPDF(unit="mm", format=(148, 210))
    pdf.add_font("DejaVu", "", str(FONTS / "DejaVuSans.ttf"))
    pdf.add_font("DejaVu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
    pdf.set_title(titre)
    pdf.set_author(organisation)
    pdf.set_creator("UnionFlow")
    pdf.set_auto_page_break(auto=True, margin=12)
    pdf.add_page()

    def text(value: str, size: float = 9, style: str = "", align: str = "L", height: float = 5) -> None:
        pdf.set_font("DejaVu", style, size)
        pdf.multi_cell(pdf.epw, height, value, align=align, new_x="LMARGIN", new_y="NEXT")

    return pdf, text


def entete(pdf: FPDF, *, numero: str, organisation: str, adresse: list[str], logo: bytes | None,
           qr: io.BytesIO | None = None) -> None:
    """Logo on the left, QR code on the right (if any), the organisation's name and address centred between."""
    top, width = pdf.get_y(), pdf.epw
    if logo:
        # A logo that is not a readable PNG/JPEG must not cost the member his receipt.
        try:
            pdf.image(io.BytesIO(logo), x=pdf.l_margin, y=top, h=18)
        except Exception as exc:  # fpdf/Pillow raise many types for damaged images
            log.warning("logo not printed on receipt %s: %s", numero, exc)
    if qr is not None:
        pdf.image(qr, x=pdf.w - pdf.r_margin - 24, y=top, w=24)
    marge = 48 if qr is not None else 44
    pdf.set_xy(pdf.l_margin + 22, top)
    pdf.set_font("DejaVu", "B", 12)
    pdf.multi_cell(width - marge, 6, organisation, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("DejaVu", "", 8)
    for ligne in adresse:
        pdf.set_x(pdf.l_margin + 22)
        pdf.multi_cell(width - marge, 4, ligne, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_y(max(pdf.get_y(), top + (26 if qr is not None else 24)))
