"""What a receipt says once its money was undone: the cancellation block printed on the original
receipt (it stays in its series, marked cancelled or refunded, with who asked, who approved and why), and the refund
receipt, numbered in its own series (RMB), that the member signs when the money is given back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from fpdf import FPDF

from unionflow.core.montants import format_montant, montant_en_lettres
from unionflow.paiements.recus.pdf_commun import document_a5, entete

FORMAT = "%d/%m/%Y à %H:%M"


@dataclass(frozen=True)
class AnnulationRecu:
    """The approved request that undid the receipt's payment."""

    rembourse: bool
    motif: str
    demande_par: str
    date_demande: datetime
    approuve_par: str
    date_decision: datetime
    numero_remboursement: str | None


@dataclass(frozen=True)
class RemboursementData:
    numero: str
    organisation: str
    organisation_adresse: list[str]
    logo: bytes | None
    membre: str
    numero_membre: str
    recu_origine: str
    date_paiement: datetime
    montant: Decimal
    devise: str
    methode: str
    annulation: AnnulationRecu


def bloc_annulation(pdf: FPDF, annulation: AnnulationRecu) -> None:
    """Printed under the title of a cancelled or refunded receipt: the receipt no longer discharges the dues."""
    quoi = "Remboursé" if annulation.rembourse else "Annulé"
    lignes = [f"{quoi} le {annulation.date_decision.strftime(FORMAT)} (UTC) — ce reçu ne vaut plus quittance.",
              f"Demandé par : {annulation.demande_par}, le {annulation.date_demande.strftime(FORMAT)}",
              f"Approuvé par : {annulation.approuve_par}", f"Motif : {annulation.motif}"]
    if annulation.numero_remboursement:
        lignes.append(f"Reçu de remboursement n° {annulation.numero_remboursement}")
    pdf.set_draw_color(185, 28, 28)
    pdf.set_text_color(185, 28, 28)
    pdf.set_font("DejaVu", "", 8)
    pdf.multi_cell(pdf.epw, 4.5, "\n".join(lignes), border=1, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)


def render_remboursement(data: RemboursementData, methode_libelle: str) -> bytes:
    pdf, text = document_a5(f"Reçu de remboursement {data.numero}", data.organisation)  # A5, like its receipt
    width = pdf.epw
    entete(pdf, numero=data.numero, organisation=data.organisation, adresse=data.organisation_adresse,
           logo=data.logo)
    text(f"REÇU DE REMBOURSEMENT N° {data.numero}", 12, "B", "C", 7)
    pdf.ln(3)
    a = data.annulation
    text(f"Remboursé à : {data.membre} — membre n° {data.numero_membre}")
    text(f"Date du remboursement : {a.date_decision.strftime(FORMAT)} (UTC)")
    text(f"Reçu d'origine : n° {data.recu_origine} du {data.date_paiement.strftime('%d/%m/%Y')} "
         f"({methode_libelle})")
    text(f"Montant remboursé : {format_montant(data.montant, data.devise)}", 10, "B")
    text(f"Soit : {montant_en_lettres(data.montant, data.devise)}")
    text(f"Motif : {a.motif}")
    pdf.ln(2)
    text(f"Demandé par : {a.demande_par}, le {a.date_demande.strftime(FORMAT)} (UTC)", 8)
    text(f"Approuvé par : {a.approuve_par}, le {a.date_decision.strftime(FORMAT)} (UTC)", 8)
    text(f"Le reçu n° {data.recu_origine} est marqué remboursé et ne vaut plus quittance; les cotisations qu'il "
         "réglait sont de nouveau dues.", 8)
    pdf.ln(8)
    pdf.set_font("DejaVu", "", 8)
    pdf.cell(width / 2, 5, "Le membre (reçu la somme, signature)")
    pdf.cell(width / 2, 5, "Le trésorier (signature et cachet)", align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(16)
    pdf.cell(width / 2, 5, "." * 40)
    pdf.cell(width / 2, 5, "." * 40, align="R", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
