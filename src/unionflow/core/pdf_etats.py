"""The page of a statement fit to sign: one mechanic for every statement PDF (balance, general
ledger, journal, balance sheet, income statement, the monthly closing pack, consolidated statements).

Every page carries the same heading — organisation, statement, period, "Édité le … par …" — and a footer
"Page n / N", so a loose sheet still says what it belongs to; tables repeat their column headings after a page
break (fpdf2's ``table``); the document ends with signature blocks (name, date, signature and stamp), the way
SYCEBNL statements are approved: the treasurer prepares, the president approves, the auditor certifies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

FONTS = Path(__file__).resolve().parent.parent / "fonts"
SIGNATAIRES_ETATS = ("Le Trésorier", "Le Président", "Le Commissaire aux comptes")
# Total pages, written into every footer once the document is complete (fpdf2 replaces the alias).
ALIAS_PAGES = "{nb}"
HAUTEUR_PIED = 10


@dataclass(frozen=True)
class EnTeteEtat:
    organisation: str
    titre: str
    periode: str
    edite_par: str = ""
    edite_le: datetime | None = None

    @property
    def edition(self) -> str:
        quand = (self.edite_le or datetime.now(UTC)).astimezone(UTC)
        par = f" par {self.edite_par}" if self.edite_par else ""
        return f"Édité le {quand:%d/%m/%Y à %H:%M} UTC{par}"


class DocumentEtat(FPDF):
    """An A4 document whose every page has the statement's heading and a numbered footer."""

    def __init__(self, entete: EnTeteEtat, paysage: bool = False) -> None:
        super().__init__(orientation="L" if paysage else "P", unit="mm", format="A4")
        self.entete = entete
        self.add_font("DejaVu", "", str(FONTS / "DejaVuSans.ttf"))
        self.add_font("DejaVu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
        self.set_title(f"{entete.titre} — {entete.organisation}")
        self.set_author(entete.organisation)
        self.set_creator("UnionFlow")
        self.alias_nb_pages(ALIAS_PAGES)
        self.set_auto_page_break(auto=True, margin=HAUTEUR_PIED + 6)

    def header(self) -> None:
        e = self.entete
        self.set_y(8)
        self.set_font("DejaVu", "B", 11)
        self.multi_cell(self.epw, 5.5, e.organisation, align="C", new_x="LMARGIN", new_y="NEXT")
        self.set_font("DejaVu", "B", 10)
        self.multi_cell(self.epw, 5, e.titre, align="C", new_x="LMARGIN", new_y="NEXT")
        self.set_font("DejaVu", "", 8)
        self.multi_cell(self.epw, 4, f"{e.periode} — {e.edition}", align="C", new_x="LMARGIN", new_y="NEXT")
        y = self.get_y() + 1
        self.set_draw_color(120, 120, 120)
        self.line(self.l_margin, y, self.w - self.r_margin, y)
        self.set_draw_color(0, 0, 0)
        self.set_y(y + 3)

    def footer(self) -> None:
        self.set_y(-HAUTEUR_PIED - 2)
        self.set_font("DejaVu", "", 7.5)
        self.set_text_color(90, 90, 90)
        gauche = f"{self.entete.organisation} — {self.entete.titre}"
        self.cell(self.epw * 0.75, 5, gauche[:120], align="L")
        self.cell(self.epw * 0.25, 5, f"Page {self.page_no()} / {ALIAS_PAGES}", align="R")
        self.set_text_color(0, 0, 0)


def signatures(doc: FPDF, arrete: str, signataires: Sequence[str]) -> None:
    """One block per signatory, side by side, on the last page (a new one if too little room is left)."""
    if not signataires:
        return
    if doc.get_y() > doc.h - doc.b_margin - 48:
        doc.add_page(orientation="L" if doc.w > doc.h else "P")  # keeps the last page's orientation
    doc.ln(6)
    # Said again above the signatures, which may stand on a page of their own.
    doc.set_font("DejaVu", "B", 9)
    doc.multi_cell(doc.epw, 5, f"Vu et arrêté : {arrete}", new_x="LMARGIN", new_y="NEXT")
    doc.ln(2)
    largeur = doc.epw / len(signataires)
    y = doc.get_y()
    for j, qui in enumerate(signataires):
        x = doc.l_margin + j * largeur
        doc.set_xy(x, y)
        doc.set_font("DejaVu", "B", 9)
        doc.multi_cell(largeur - 6, 5, qui, new_x="LEFT", new_y="NEXT")
        doc.set_font("DejaVu", "", 8)
        doc.multi_cell(largeur - 6, 5, "Nom : ………………………………………", new_x="LEFT", new_y="NEXT")
        doc.multi_cell(largeur - 6, 5, "Date : ……… / ……… / ………………", new_x="LEFT", new_y="NEXT")
        doc.multi_cell(largeur - 6, 5, "Signature et cachet :", new_x="LEFT", new_y="NEXT")
        doc.rect(x, doc.get_y() + 1, largeur - 8, 20)
    doc.set_xy(doc.l_margin, doc.get_y() + 23)
