"""The page of a statement fit to sign: one mechanic for every statement PDF (balance, general
ledger, journal, balance sheet, income statement, the monthly closing pack, consolidated statements).

Every page carries the same heading — organisation, statement, period, "Édité le … par …" — and a footer
"Page n / N", so a loose sheet still says what it belongs to; tables repeat their column headings after a page
break (fpdf2's ``table``); the document ends with signature blocks (name, date, signature and stamp), the way
SYCEBNL statements are approved: the treasurer prepares, the president approves, the auditor certifies.

A year's statement says when it was arrêté (``Arrete``, AUDCIF art. 23: « La date d'arrêté doit être mentionnée dans
toute transmission des états financiers »), or that it is a draft, above the signatures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from fpdf import FPDF

FONTS = Path(__file__).resolve().parent.parent / "fonts"
SIGNATAIRES_ETATS = ("Le Trésorier", "Le Président", "Le Commissaire aux comptes")
# Total pages, written into every footer once the document is complete (fpdf2 replaces the alias).
ALIAS_PAGES = "{nb}"
HAUTEUR_PIED = 10
# AUDCIF art. 23: « arrêtés au plus tard dans les quatre mois qui suivent la date de clôture de l'exercice ».
MOIS_ARRETE = 4


@dataclass(frozen=True)
class Arrete:
    """When a year's statements were arrêtés: ``le`` is the day the year was closed (the closing that locks it,
    ``exercice_comptable.date_cloture``), None while it is open — a draft, never a date made up."""

    exercice: int
    le: date | None

    @property
    def limite(self) -> date:
        """The last day of the four months after 31 December of the year (30 April of the next)."""
        return date(self.exercice + 1, MOIS_ARRETE, 30)

    @property
    def hors_delai(self) -> bool:
        return self.le is not None and self.le > self.limite

    @property
    def mention(self) -> str:
        if self.le is None:
            return f"Projet — non arrêté (exercice {self.exercice} non clôturé)"
        return f"Arrêté le {self.le:%d/%m/%Y} (clôture de l'exercice {self.exercice})"

    @property
    def avertissement(self) -> str | None:
        if not self.hors_delai:
            return None
        assert self.le is not None
        return (f"ATTENTION : arrêté le {self.le:%d/%m/%Y}, plus de quatre mois après la clôture de l'exercice le "
                f"31/12/{self.exercice} (AUDCIF art. 23 : au plus tard le {self.limite:%d/%m/%Y}).")


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
        self._centree(5.5, e.organisation)
        self.set_font("DejaVu", "B", 10)
        self._centree(5, e.titre)
        self.set_font("DejaVu", "", 8)
        self._centree(4, f"{e.periode} — {e.edition}")
        y = self.get_y() + 1
        self.set_draw_color(120, 120, 120)
        self.line(self.l_margin, y, self.w - self.r_margin, y)
        self.set_draw_color(0, 0, 0)
        self.set_y(y + 3)

    def _centree(self, h: float, texte: str) -> None:
        """A centred heading line, wrapped when too long. One that fits is written with ``cell``, at the same place:
        ``multi_cell`` measures its line again for each character, and the heading is on every page."""
        if "\n" not in texte and self.get_string_width(texte) < self.epw - 2 * self.c_margin - 0.01:
            self.cell(self.epw, h, texte, align="C", new_x="LMARGIN", new_y="NEXT")
        else:
            self.multi_cell(self.epw, h, texte, align="C", new_x="LMARGIN", new_y="NEXT")

    def footer(self) -> None:
        self.set_y(-HAUTEUR_PIED - 2)
        self.set_font("DejaVu", "", 7.5)
        self.set_text_color(90, 90, 90)
        gauche = f"{self.entete.organisation} — {self.entete.titre}"
        self.cell(self.epw * 0.75, 5, gauche[:120], align="L")
        self.cell(self.epw * 0.25, 5, f"Page {self.page_no()} / {ALIAS_PAGES}", align="R")
        self.set_text_color(0, 0, 0)


def signatures(doc: FPDF, arrete: str, signataires: Sequence[str], date_arrete: Arrete | None = None) -> None:
    """One block per signatory, side by side, on the last page (a new one if too little room is left); a year's
    statement (``date_arrete``) says its date d'arrêté, or « projet — non arrêté », and warns when it is late."""
    if not signataires:
        return
    if doc.get_y() > doc.h - doc.b_margin - 58:
        doc.add_page(orientation="L" if doc.w > doc.h else "P")  # keeps the last page's orientation
    doc.ln(6)
    # Said again above the signatures, which may stand on a page of their own.
    doc.set_font("DejaVu", "B", 9)
    if date_arrete is None:
        doc.multi_cell(doc.epw, 5, f"Vu et arrêté : {arrete}", new_x="LMARGIN", new_y="NEXT")
    elif date_arrete.le is None:
        doc.multi_cell(doc.epw, 5, f"Projet — non arrêté : {arrete} (l'exercice {date_arrete.exercice} n'est pas "
                                   "clôturé)", new_x="LMARGIN", new_y="NEXT")
    else:
        doc.multi_cell(doc.epw, 5, f"Vu et arrêté le {date_arrete.le:%d/%m/%Y} : {arrete}", new_x="LMARGIN",
                       new_y="NEXT")
    if date_arrete is not None and (avertissement := date_arrete.avertissement) is not None:
        doc.set_text_color(170, 0, 0)
        doc.multi_cell(doc.epw, 5, avertissement, new_x="LMARGIN", new_y="NEXT")
        doc.set_text_color(0, 0, 0)
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
