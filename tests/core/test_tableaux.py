"""The statements' table renderers on a large table: the PDF grid (core/pdf_grille.py) lays a table out as fpdf2's
``FPDF.table`` did (same pages, same text at the same places), and the write-only workbook keeps every line, its
formats and the totals."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime
from decimal import Decimal

import pypdfium2 as pdfium
from fpdf.enums import Align
from fpdf.fonts import FontFace
from openpyxl import load_workbook

from unionflow.core import tableaux
from unionflow.core.pdf_etats import DocumentEtat, EnTeteEtat
from unionflow.core.pdf_grille import Grille
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau

M = Nature.MONTANT
LONG = "Cotisation mensuelle de janvier — Aminata Diop, reçu R-2023-000123, versement Wave du compte joint " * 2


def _grand_livre(comptes: int, lignes: int) -> Tableau:
    """A general ledger of ``comptes`` accounts of ``lignes`` lines each; every 7th label wraps over lines."""
    blocs = []
    for c in range(comptes):
        rows = [(None, "", "", "Solde d'ouverture", None, None, Decimal(0))]
        solde = Decimal(0)
        for i in range(lignes):
            solde += Decimal(2500)
            rows.append((date(2023, 1 + i % 12, 1 + i % 28), f"VT-2023-{c:02d}{i:05d}", "VT",
                         LONG if i % 7 == 0 else f"Cotisation {i}", Decimal(2500), None, solde))
        blocs.append(Bloc(f"70{c} — Cotisations", rows, (None, "", "", "Total et solde de clôture",
                                                         Decimal(2500) * lignes, Decimal(0), solde)))
    colonnes = [Colonne("Date", Nature.DATE, 1), Colonne("Pièce", largeur=1.5), Colonne("Journal", largeur=0.7),
                Colonne("Libellé", largeur=4.4), Colonne("Débit", M, 1.3), Colonne("Crédit", M, 1.3),
                Colonne("Solde", M, 1.4)]
    return Tableau(titre="Grand livre", organisation="Mutuelle test", sous_titre="Période du 01/01/2023 au "
                   "31/12/2023", colonnes=colonnes, blocs=blocs, notes=["Solde: débiteur positif."], paysage=True,
                   edite_le=datetime(2024, 1, 2, tzinfo=UTC), signataires=("Le Trésorier",))


def _avec_fpdf_table(tableau: Tableau) -> bytes:
    """The table as fpdf2's ``FPDF.table`` drew it before core/pdf_grille.py (the reference layout)."""
    doc = DocumentEtat(EnTeteEtat(tableau.organisation, tableau.titre, tableau.sous_titre, "",
                                  tableau.edite_le), tableau.paysage)
    doc.add_page()
    bold = FontFace(emphasis="BOLD")
    aligns = tuple("RIGHT" if c.nature is M else "LEFT" for c in tableau.colonnes)
    doc.set_font("DejaVu", "", 7.5)
    with doc.table(col_widths=tuple(c.largeur for c in tableau.colonnes), text_align=aligns, headings_style=bold,
                   line_height=4) as table:
        table.row([c.titre for c in tableau.colonnes])
        for bloc in tableau.blocs:
            if bloc.titre:
                table.row(style=bold).cell(bloc.titre, colspan=len(tableau.colonnes), align="LEFT")
            for ligne in bloc.lignes:
                table.row([tableaux._texte(v, c.nature, tableau.devise)
                           for v, c in zip(ligne, tableau.colonnes, strict=True)])
            if bloc.total is not None:
                table.row([tableaux._texte(v, c.nature, tableau.devise)
                           for v, c in zip(bloc.total, tableau.colonnes, strict=True)], style=bold)
    return bytes(doc.output())


def _avec_grille(tableau: Tableau) -> bytes:
    doc = DocumentEtat(EnTeteEtat(tableau.organisation, tableau.titre, tableau.sous_titre, "",
                                  tableau.edite_le), tableau.paysage)
    doc.add_page()
    tableaux._table(doc, tableau)
    return bytes(doc.output())


def _pages(content: bytes) -> list[list[tuple[str, tuple[float, ...]]]]:
    """Each page's characters with their boxes, in points (rounded to the tenth)."""
    document = pdfium.PdfDocument(content)
    try:
        pages = []
        for i in range(len(document)):
            text = document[i].get_textpage()
            pages.append([(text.get_text_range(k, 1), tuple(round(v, 1) for v in text.get_charbox(k)))
                          for k in range(text.count_chars())])
        return pages
    finally:
        document.close()


def test_grid_lays_the_table_out_as_fpdf_table_did() -> None:
    tableau = _grand_livre(comptes=3, lignes=80)
    tableau.notes = []
    reference, grille = _pages(_avec_fpdf_table(tableau)), _pages(_avec_grille(tableau))
    assert len(grille) == len(reference) > 3
    for page_ref, page in zip(reference, grille, strict=True):
        assert "".join(c for c, _ in page) == "".join(c for c, _ in page_ref)
        # Same places: wrapped labels, right-aligned amounts, headings repeated at the top of each page.
        assert all(max(abs(a - b) for a, b in zip(box, box_ref, strict=True)) <= 0.2
                   for (_, box), (_, box_ref) in zip(page, page_ref, strict=True))


def test_grid_cuts_lines_where_fpdf_cuts_them() -> None:
    doc = DocumentEtat(EnTeteEtat("Mutuelle", "Grand livre", "2023"), paysage=True)
    doc.add_page()
    doc.set_font("DejaVu", "", 7.5)
    grille = Grille(doc, [1, 4.4, 1.3], [Align.L, Align.L, Align.R], hauteur_ligne=4)
    textes = [LONG, "Aminata " * 40, "x" * 300, "Reçu  R-2023  double  espace " * 6, "mot " * 60 + "   ",
              "Virement " + "Wave" * 80 + " fin", "Solde d'ouverture", "Ndèye Fatou Diop Sarr — cotisation " * 5]
    for largeur in grille.largeurs:
        for gras in (False, True):
            doc.set_font("DejaVu", "B" if gras else "", 7.5)
            for texte in textes:
                attendu = doc.multi_cell(largeur, 4, texte, align="L", dry_run=True, output="LINES")
                assert grille._couper(texte, largeur - 2 * doc.c_margin, gras) == attendu, (texte, largeur)


def test_grid_of_an_empty_table_is_its_heading() -> None:
    tableau = _grand_livre(comptes=0, lignes=0)
    assert "Date" in "".join(c for c, _ in _pages(_avec_grille(tableau))[0])


def test_a_large_general_ledger_prints_every_line_and_its_totals() -> None:
    tableau = _grand_livre(comptes=2, lignes=1500)
    text = "\n".join("".join(c for c, _ in page) for page in _pages(tableaux.pdf(tableau)))
    assert text.count("Cotisation 1499") == 2 and text.count("Total et solde de clôture") == 2
    assert text.replace("\u00a0", " ").count("3 750 000 FCFA") >= 4  # each account's total debit and closing balance
    assert "Page 1 / " in text and "Le Trésorier" in text


def test_a_large_workbook_keeps_every_line_its_formats_and_totals() -> None:
    tableau = _grand_livre(comptes=2, lignes=1500)
    sheet = load_workbook(io.BytesIO(tableaux.xlsx(tableau))).active
    assert sheet is not None
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][0] == "Grand livre" and rows[3] == tuple(c.titre for c in tableau.colonnes)
    assert len(rows) == 4 + 2 * (1 + 1 + 1500 + 1) + 1  # heading rows, per account: title, opening, lines, total
    totals = [r for r in rows if r[3] == "Total et solde de clôture"]
    assert [(r[4], r[6]) for r in totals] == [(3_750_000, 3_750_000)] * 2
    assert sheet.freeze_panes == "A5"
    assert sheet.auto_filter.ref == f"A4:G{len(rows) - 1}"
    total_row = next(i for i, r in enumerate(rows, start=1) if r[3] == "Total et solde de clôture")
    assert sheet.cell(total_row, 5).font.b and sheet.cell(total_row, 5).number_format == tableaux.FORMAT_FCFA
    assert sheet.cell(6, 1).number_format == tableaux.FORMAT_DATE and not sheet.cell(6, 1).font.b
    assert sheet.column_dimensions["D"].width == 60  # the long labels, capped
    assert rows[-1] == ("Solde: débiteur positif.", None, None, None, None, None, None)
