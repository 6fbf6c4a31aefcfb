"""Receipt PDF (fpdf2). Core fonts are Latin-1: text is folded to it so names with other characters print."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from fpdf import FPDF

STATUT_LIBELLE = {"VALIDE": "PAYÉ", "ANNULE": "ANNULÉ", "REMBOURSE": "REMBOURSÉ"}


@dataclass(frozen=True)
class RecuData:
    numero: str
    organisation: str
    membre: str
    numero_membre: str
    montant: Decimal
    devise: str
    methode: str
    statut: str
    reference: str | None
    date: datetime
    lignes: list[tuple[str, str, Decimal]]
    non_affecte: Decimal
    enregistre_par: str | None


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def money(value: Decimal, devise: str) -> str:
    whole = f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"
    return f"{whole.replace(',', ' ')} {devise}"


def render_recu(data: RecuData) -> bytes:
    pdf = FPDF(unit="mm", format=(148, 210))
    pdf.set_title(_latin1(f"Reçu {data.numero}"))
    pdf.set_author(_latin1(data.organisation))
    # Uncompressed: a receipt is one small page and stays searchable by its number.
    pdf.set_compression(False)
    pdf.add_page()
    width = pdf.epw

    def line(text: str, size: int = 10, style: str = "", align: str = "L") -> None:
        pdf.set_font("Helvetica", style, size)
        pdf.multi_cell(width, 6, _latin1(text), align=align, new_x="LMARGIN", new_y="NEXT")

    line(data.organisation, 14, "B", "C")
    line(f"REÇU DE PAIEMENT N° {data.numero}", 12, "B", "C")
    if data.statut != "VALIDE":
        line(STATUT_LIBELLE.get(data.statut, data.statut), 12, "B", "C")
    pdf.ln(4)
    line(f"Membre : {data.membre} ({data.numero_membre})")
    line(f"Date : {data.date.strftime('%d/%m/%Y %H:%M')} UTC")
    line(f"Méthode : {data.methode}" + (f" - référence {data.reference}" if data.reference else ""))
    pdf.ln(3)
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(width * 0.35, 7, "Référence", border=1)
    pdf.cell(width * 0.40, 7, _latin1("Libellé"), border=1)
    pdf.cell(width * 0.25, 7, "Montant", border=1, align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    for reference, libelle, montant in data.lignes:
        pdf.cell(width * 0.35, 7, _latin1(reference), border=1)
        pdf.cell(width * 0.40, 7, _latin1(libelle[:40]), border=1)
        pdf.cell(width * 0.25, 7, _latin1(money(montant, data.devise)), border=1, align="R",
                 new_x="LMARGIN", new_y="NEXT")
    if data.non_affecte > 0:
        pdf.cell(width * 0.75, 7, _latin1("Crédit (non affecté)"), border=1)
        pdf.cell(width * 0.25, 7, _latin1(money(data.non_affecte, data.devise)), border=1, align="R",
                 new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(width * 0.75, 8, "TOTAL", border=1)
    pdf.cell(width * 0.25, 8, _latin1(money(data.montant, data.devise)), border=1, align="R",
             new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    if data.enregistre_par:
        line(f"Enregistré par : {data.enregistre_par}", 8)
    return bytes(pdf.output())
