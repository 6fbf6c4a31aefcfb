"""Tables a treasurer prints or opens in Excel: one description, rendered to PDF (fpdf2, shipped Unicode font)
or XLSX (openpyxl: bold frozen header with filters, sized columns, FCFA and date formats, bold totals)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, TypeVar

from fastapi.responses import Response
from fpdf import FPDF
from fpdf.enums import Align

from unionflow.core.montants import format_montant
from unionflow.core.pdf_etats import FONTS as FONTS
from unionflow.core.pdf_etats import Arrete, DocumentEtat, EnTeteEtat, signatures
from unionflow.core.pdf_grille import Grille, LigneGrille

XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PDF_MEDIA_TYPE = "application/pdf"
# The 200 of a statement route besides its JSON (``responses={**BINAIRES, ...}``): the PDF and the workbook.
BINAIRES: dict[int | str, dict[str, Any]] = {200: {"content": {
    PDF_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}},
    XLSX_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}}}
FORMAT_FCFA = '#,##0 "FCFA";-#,##0 "FCFA";"-"'
FORMAT_MONTANT = "#,##0.00"
FORMAT_DATE = "dd/mm/yyyy"
FORMAT_DATE_HEURE = "dd/mm/yyyy hh:mm"


class Nature(StrEnum):
    TEXTE = "texte"
    MONTANT = "montant"
    ENTIER = "entier"
    DATE = "date"


@dataclass(frozen=True)
class Colonne:
    titre: str
    nature: Nature = Nature.TEXTE
    largeur: float = 1.0  # relative width in the PDF; Excel widths follow the content


@dataclass
class Bloc:
    titre: str | None
    lignes: Sequence[Sequence[Any]]
    total: Sequence[Any] | None = None


@dataclass
class Tableau:
    titre: str
    organisation: str
    sous_titre: str
    colonnes: list[Colonne]
    blocs: list[Bloc]
    notes: list[str] = field(default_factory=list)
    devise: str = "XOF"
    paysage: bool = False
    # Printed heading of every page (core/pdf_etats.py) and the signatories at the end of the PDF.
    edite_par: str = ""
    edite_le: datetime | None = None
    signataires: Sequence[str] = ()
    # A year's statement: its date d'arrêté (or « projet — non arrêté ») above the signatures and in the workbook.
    arrete: Arrete | None = None


def excel_number_format(nature: Nature, devise: str) -> str | None:
    if nature is Nature.MONTANT:
        return FORMAT_FCFA if devise in ("XOF", "XAF") else FORMAT_MONTANT
    if nature is Nature.DATE:
        return FORMAT_DATE
    if nature is Nature.ENTIER:
        return "#,##0"
    return None


def _texte(value: Any, nature: Nature, devise: str) -> str:
    if value is None or value == "":
        return ""
    if nature is Nature.MONTANT:
        return format_montant(Decimal(value), devise)
    if isinstance(value, datetime):
        return value.strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    return str(value)


def _lignes_grille(tableau: Tableau) -> Iterator[LigneGrille]:
    """The table's rows as printed, one at a time: block titles spanning the row, lines, bold totals."""
    colonnes, devise = tableau.colonnes, tableau.devise
    for bloc in tableau.blocs:
        if bloc.titre:
            yield LigneGrille([bloc.titre], gras=True, fusionnee=True)
        for ligne in bloc.lignes:
            yield LigneGrille([_texte(v, c.nature, devise) for v, c in zip(ligne, colonnes, strict=True)])
        if bloc.total is not None:
            yield LigneGrille([_texte(v, c.nature, devise) for v, c in zip(bloc.total, colonnes, strict=True)],
                              gras=True)


def _table(doc: FPDF, tableau: Tableau) -> None:
    aligns = [Align.R if c.nature in (Nature.MONTANT, Nature.ENTIER) else Align.L for c in tableau.colonnes]
    doc.set_font("DejaVu", "", 7.5)
    # One table: headings repeat on every page, block titles span the row (core/pdf_grille.py).
    Grille(doc, [c.largeur for c in tableau.colonnes], aligns, hauteur_ligne=4).dessiner(
        [c.titre for c in tableau.colonnes], _lignes_grille(tableau))
    doc.ln(3)
    doc.set_font("DejaVu", "", 8)
    for note in tableau.notes:
        doc.multi_cell(doc.epw, 4.5, note, new_x="LMARGIN", new_y="NEXT")


def pdf(tableau: Tableau) -> bytes:
    """A statement: its heading and "Page n / N" on every page, the table, its notes, the signature blocks."""
    doc = DocumentEtat(EnTeteEtat(tableau.organisation, tableau.titre, tableau.sous_titre, tableau.edite_par,
                                  tableau.edite_le), tableau.paysage)
    doc.add_page()
    _table(doc, tableau)
    signatures(doc, f"{tableau.titre} — {tableau.organisation}", tableau.signataires, tableau.arrete)
    return bytes(doc.output())


def pdf_dossier(titre: str, organisation: str, sous_titre: str, sections: Sequence[Tableau],
                signataires: Sequence[str], edite_par: str = "", couverture: Sequence[str] = (),
                arrete: Arrete | None = None) -> bytes:
    """Several tables in one document (a closing pack), each under its title; a section in the other orientation
    starts a page. The pack's heading and page numbers are on every page; it ends with a signature block per
    signatory (name, date, signature). ``couverture``: lines of a cover page (the first one as a title)."""
    doc = DocumentEtat(EnTeteEtat(organisation, titre, sous_titre, edite_par))
    doc.add_page()
    if couverture:
        _couverture(doc, couverture)
        doc.add_page()
    paysage = False
    for i, section in enumerate(sections):
        if i and section.paysage != paysage:  # a new page only where the orientation changes
            doc.add_page(orientation="L" if section.paysage else "P")
        elif i:
            doc.ln(4)
        paysage = section.paysage
        doc.set_font("DejaVu", "B", 11)
        doc.multi_cell(doc.epw, 6, section.titre, new_x="LMARGIN", new_y="NEXT")
        doc.set_font("DejaVu", "", 8)
        if section.sous_titre:
            doc.multi_cell(doc.epw, 4.5, section.sous_titre, new_x="LMARGIN", new_y="NEXT")
        doc.ln(1)
        _table(doc, section)
    signatures(doc, f"{titre} — {organisation}", signataires, arrete)
    return bytes(doc.output())


def _couverture(doc: FPDF, lignes: Sequence[str]) -> None:
    doc.set_y(doc.h / 4)
    doc.set_font("DejaVu", "B", 18)
    doc.multi_cell(doc.epw, 10, lignes[0], align="C", new_x="LMARGIN", new_y="NEXT")
    doc.ln(8)
    doc.set_font("DejaVu", "", 11)
    for ligne in lignes[1:]:
        doc.multi_cell(doc.epw, 7, ligne, align="C", new_x="LMARGIN", new_y="NEXT")


def _lignes_xlsx(tableau: Tableau) -> Iterator[tuple[Sequence[Any], bool]]:
    """The workbook's rows below the heading, each with whether it is bold: block titles, lines, totals."""
    vide = [None] * (len(tableau.colonnes) - 1)
    for bloc in tableau.blocs:
        if bloc.titre:
            yield [bloc.titre, *vide], True
        for ligne in bloc.lignes:
            yield ligne, False
        if bloc.total is not None:
            yield bloc.total, True


def xlsx(tableau: Tableau) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    # Write-only: each row goes to the file as it is appended, in constant memory and linear time (a normal
    # worksheet's ``max_row``, read for each row appended, scans every cell: 10 s for a year's journal). Column
    # widths and frozen panes come before the first row, so the widths are measured in a first pass.
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(tableau.titre[:31])
    n = len(tableau.colonnes)
    formats = [excel_number_format(c.nature, tableau.devise) for c in tableau.colonnes]
    widths = [len(c.titre) + 2 for c in tableau.colonnes]
    lignes = 0
    for values, _ in _lignes_xlsx(tableau):
        lignes += 1
        for i, (value, colonne) in enumerate(zip(values, tableau.colonnes, strict=True)):
            widths[i] = max(widths[i], min(len(_texte(value, colonne.nature, tableau.devise)) + 2, 60))
    for i, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(i)].width = width
    header_row = 4
    sheet.freeze_panes = f"A{header_row + 1}"

    def cell(value: Any, font: Font | None = None, number_format: str | None = None) -> Any:
        c = WriteOnlyCell(sheet, _excel(value))
        if font is not None:
            c.font = font
        if number_format is not None:
            c.number_format = number_format
        return c

    sheet.append([cell(tableau.titre, Font(bold=True, size=13))])
    edition = EnTeteEtat(tableau.organisation, tableau.titre, tableau.sous_titre, tableau.edite_par,
                         tableau.edite_le).edition
    sheet.append([_excel(f"{tableau.organisation} — {tableau.sous_titre} — {edition}")])
    if tableau.arrete is None:
        sheet.append([])
    else:  # AUDCIF art. 23: the date d'arrêté in every transmission, the workbook too (the row left blank otherwise)
        sheet.append([cell(" — ".join(filter(None, (tableau.arrete.mention, tableau.arrete.avertissement))),
                           Font(bold=True, color="AA0000" if tableau.arrete.hors_delai else "000000"))])
    entete = []
    for colonne in tableau.colonnes:
        c = cell(colonne.titre, Font(bold=True, color="FFFFFF"))
        c.fill = PatternFill("solid", fgColor="1F4E78")
        c.alignment = Alignment(vertical="center", wrap_text=True)
        entete.append(c)
    sheet.append(entete)
    gras = Font(bold=True)
    for values, en_gras in _lignes_xlsx(tableau):
        sheet.append([cell(v, gras if en_gras else None, formats[i]) for i, v in enumerate(values)])
    for note in tableau.notes:
        sheet.append([_excel(note)])
    sheet.auto_filter.ref = f"A{header_row}:{get_column_letter(n)}{header_row + lignes}"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _excel(value: Any) -> Any:
    if isinstance(value, str):
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        # Control characters (an organisation named by an import or a client) cannot be stored in a workbook;
        # data never becomes a formula in it.
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
        return value if not value.startswith("=") else "'" + value
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return value


def rendu(tableau: Tableau, fmt: str) -> tuple[bytes, str]:
    """(content, media type) of the table as ``pdf`` or ``xlsx``."""
    if fmt == "pdf":
        return pdf(tableau), PDF_MEDIA_TYPE
    if fmt == "xlsx":
        return xlsx(tableau), XLSX_MEDIA_TYPE
    raise ValueError(f"format {fmt!r}: pdf or xlsx")


def fichier(content: bytes, media: str, nom: str) -> Response:
    """A document to download: ``Content-Disposition: attachment`` under the name ``nom``."""
    return Response(content, media_type=media, headers={"Content-Disposition": f'attachment; filename="{nom}"'})


E = TypeVar("E")


def reponse_etat(etat: E, fmt: str, tableau: Callable[[E], Tableau], edite_par: str, nom: str) -> E | Response:
    """A statement route's answer to its ``format`` (``json``, ``pdf`` or ``xlsx``): the statement itself (the
    route's response model serialises it), or the table ``tableau`` builds from it, edited by ``edite_par``, as
    the PDF or the workbook named ``{nom}.{fmt}``."""
    if fmt == "json":
        return etat
    table = tableau(etat)
    table.edite_par = edite_par
    return fichier(*rendu(table, fmt), f"{nom}.{fmt}")
