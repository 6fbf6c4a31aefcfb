"""A statement's table drawn row by row: bordered cells, a bold heading row repeated at the top of every page, bold
rows (block titles spanning the row, totals), text wrapped in its column when too wide.

It lays the table out as fpdf2's ``FPDF.table`` did for the statements (all borders, no padding, text middle-aligned
in its cell, a row's height that of its tallest cell, a row that does not fit starting a new page), but about ten
times faster: ``FPDF.table`` keeps every row in memory and passes each cell twice through ``multi_cell``, whose
line breaker measures the line again for each character (quadratic in its length) — 5 ms a row, 10 s for a year's
general ledger of 2,000 lines. Here a cell whose text fits on one line (nearly every one: dates, amounts, account
numbers, most labels) is measured once (``get_string_width``) and written with ``cell``; only a text wider than its
column goes through ``multi_cell``. Rows are drawn as they come, so a caller can hand them over one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fpdf import FPDF
from fpdf.enums import Align, WrapMode

# Width left to a text on one line under which it surely fits: the line breaker's own test allows for rounding.
MARGE_MESURE = 0.01
# Texts up to this length have their width remembered for the document (a few hundred distinct ones).
LONGUEUR_MEMORISEE = 24
# A text with one of these goes through multi_cell: a line break, a form feed, a soft hyphen (hidden unless the line
# breaks there), a breaking space other than the plain one (fpdf2's line_break.BREAKING_SPACE_SYMBOLS).
MULTI_CELL = frozenset("\n\u000c\u00ad\u200b\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                       "\u205f\u3000")
# fpdf2's tolerance when it compares a line's width with the room left (util.FloatTolerance).
TOLERANCE = 1e-9
# Written as a space, as FPDF.cell writes it (PDF viewers ignore a non-breaking space for word spacing); amounts
# group their digits with it.
NBSP = "\u00a0"
# A cell of a row: x, width, alignment, text.
Cellule = tuple[float, float, Align, str]


@dataclass(frozen=True)
class LigneGrille:
    """One row: its cells' texts (one text for a row spanning every column, ``fusionnee``), bold or not."""

    cellules: Sequence[str]
    gras: bool = False
    fusionnee: bool = False


class Grille:
    def __init__(self, doc: FPDF, largeurs: Sequence[float], alignements: Sequence[Align], hauteur_ligne: float
                 ) -> None:
        self.doc = doc
        self.hauteur_ligne = hauteur_ligne
        self.alignements = alignements
        total = sum(largeurs)
        # Relative widths over the printable width, as FPDF.table(col_widths=...) shares it.
        self.largeurs = [largeur / total * doc.epw for largeur in largeurs]
        self.famille, self.taille = doc.font_family, doc.font_size_pt
        self._mesures: dict[tuple[str, bool], float] = {}

    def _cellules(self, ligne: LigneGrille) -> list[Cellule]:
        """(x, width, alignment, text) of the row's cells."""
        x = self.doc.l_margin
        if ligne.fusionnee:
            return [(x, self.doc.epw, Align.L, ligne.cellules[0])]
        cellules = []
        for largeur, align, texte in zip(self.largeurs, self.alignements, ligne.cellules, strict=True):
            cellules.append((x, largeur, align, texte))
            x += largeur
        return cellules

    def _largeur(self, texte: str, gras: bool) -> float:
        """The text's width in the row's font; short texts (dates, amounts, numbers, codes), which repeat from one
        line to the next, measured once per document."""
        if len(texte) > LONGUEUR_MEMORISEE:
            return self.doc.get_string_width(texte)
        cle = (texte, gras)
        largeur = self._mesures.get(cle)
        if largeur is None:
            largeur = self._mesures[cle] = self.doc.get_string_width(texte)
        return largeur

    def _mesurer(self, ligne: LigneGrille, cellules: list[Cellule]) -> tuple[float, list[list[str] | None]]:
        """The row's height, and per cell the lines of its text (none for an empty cell; None for a text that only
        multi_cell can lay out)."""
        doc, toutes = self.doc, []
        for _, largeur, align, texte in cellules:
            lignes: list[str] | None = []
            if texte and MULTI_CELL.isdisjoint(texte):
                place = largeur - 2 * doc.c_margin
                if self._largeur(texte, ligne.gras) < place - MARGE_MESURE:
                    lignes = [texte]
                elif align is Align.L:
                    lignes = self._couper(texte, place, ligne.gras)
                else:
                    lignes = None
            elif texte:
                lignes = None
            toutes.append(lignes)
        nombres = [len(lignes) if lignes is not None else self._nombre_multi_cell(cellule)
                   for lignes, cellule in zip(toutes, cellules, strict=True)]
        return (max(nombres, default=0) or 1) * self.hauteur_ligne, toutes

    def _nombre_multi_cell(self, cellule: Cellule) -> int:
        _, largeur, align, texte = cellule
        lignes = self.doc.multi_cell(largeur, self.hauteur_ligne, texte, align=align, dry_run=True, output="LINES",
                                     wrapmode=WrapMode.WORD)
        assert isinstance(lignes, list)
        return len(lignes)

    def _couper(self, texte: str, place: float, gras: bool) -> list[str]:
        """The text's lines in a column leaving ``place`` to the text, cut where fpdf2's line breaker (WORD mode)
        cuts it: characters are added while they fit; the one that does not fit ends the line — dropped if it is a
        space, else the line goes back to its last space (dropped too) or, without one, breaks in the word. Each
        character measured once, where fpdf2 measures the whole line again for each (quadratic)."""
        lignes, debut, n = [], 0, len(texte)
        while debut < n:
            largeur, espace, i = 0.0, -1, debut
            while i < n:
                c = texte[i]
                mesure = self._largeur(c, gras)
                if largeur + mesure - place > TOLERANCE:
                    break
                if c == " ":
                    espace = i
                largeur += mesure
                i += 1
            if i == n:
                lignes.append(texte[debut:])
                break
            if texte[i] == " ":
                lignes.append(texte[debut:i])
                debut = i + 1
            elif espace >= 0:
                lignes.append(texte[debut:espace])
                debut = espace + 1
            elif i > debut:
                lignes.append(texte[debut:i])
                debut = i
            else:  # not even one character fits: as fpdf2 (which refuses it)
                raise ValueError("colonne trop étroite pour un caractère")
        return lignes

    def _police(self, gras: bool) -> None:
        self.doc.set_font(self.famille, "B" if gras else "", self.taille)

    def _dessiner(self, ligne: LigneGrille, cellules: list[Cellule],
                  mesures: tuple[float, list[list[str] | None]]) -> None:
        doc, h = self.doc, self.hauteur_ligne
        hauteur, toutes = mesures
        self._police(ligne.gras)
        y = doc.y
        # Baseline of a line of text in a cell of height h, as FPDF.cell and multi_cell place it.
        base = 0.5 * h + 0.3 * doc.font_size
        for (x, largeur, align, texte), lignes in zip(cellules, toutes, strict=True):
            doc.rect(x, y, largeur, hauteur)
            if lignes is None:
                n = self._nombre_multi_cell((x, largeur, align, texte))
                doc.set_xy(x, y + (hauteur - n * h) / 2)
                doc.multi_cell(largeur, h, texte, align=align, max_line_height=h, new_x="RIGHT", new_y="TOP",
                               wrapmode=WrapMode.WORD)
                continue
            haut = y + (hauteur - len(lignes) * h) / 2  # text in the middle of the cell
            for k, texte_ligne in enumerate(lignes):
                # Where FPDF.cell writes a line (inner margin c_margin); a right-aligned text is on one line.
                gauche = (x + largeur - doc.c_margin - self._largeur(texte_ligne, ligne.gras) if align is Align.R
                          else x + doc.c_margin)
                doc.text(gauche, haut + k * h + base, texte_ligne.replace(NBSP, " "))
        doc.set_xy(doc.l_margin, y + hauteur)

    def dessiner(self, entete: Sequence[str], lignes: Iterable[LigneGrille]) -> None:
        """The heading row, then each row; before a row that does not fit, a new page and the heading again."""
        tete = LigneGrille(entete, gras=True)
        self._police(True)
        cellules_tete = self._cellules(tete)
        mesures_tete = self._mesurer(tete, cellules_tete)
        premiere = True
        for ligne in lignes:
            self._police(ligne.gras)
            cellules = self._cellules(ligne)
            mesures = self._mesurer(ligne, cellules)
            if premiere:
                # Never the heading alone at the foot of a page: it goes over with the first row.
                self._saut_si(mesures_tete[0] + mesures[0])
                self._dessiner(tete, cellules_tete, mesures_tete)
                premiere = False
            if self._saut_si(mesures[0]):
                self._dessiner(tete, cellules_tete, mesures_tete)
            self._dessiner(ligne, cellules, mesures)
        if premiere:
            self._saut_si(mesures_tete[0])
            self._dessiner(tete, cellules_tete, mesures_tete)
        self._police(False)

    def _saut_si(self, hauteur: float) -> bool:
        """A new page (heading and footer drawn by the document) when ``hauteur`` does not fit on this one."""
        doc = self.doc
        if not doc.will_page_break(hauteur):
            return False
        doc.add_page(same=True)
        doc.set_x(doc.l_margin)
        return True
