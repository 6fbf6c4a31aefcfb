"""Receipt PDF a treasurer can sign and hand out (fpdf2).

A Unicode TrueType font ships with the package (DejaVu Sans, ``unionflow/fonts``) so every name, dash and
accent prints as written. The receipt carries the organisation's name, address and logo, the amount in figures
(FCFA) and in words, each line paid with what is still owed on it after this payment, the method in words, and a
QR code pointing to the public verification route (``GET /api/recus/verifier/{numero}?cle=…``), which confirms the
number, amount, date and organisation without showing the member's data.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

import qrcode
from fpdf.fonts import FontFace

from unionflow.core.libelles import METHODE_PAIEMENT
from unionflow.core.montants import format_montant, montant_en_lettres
from unionflow.models.paiement import StatutPaiement
from unionflow.paiements.recus.pdf_commun import document_a5, entete
from unionflow.paiements.recus.pdf_remboursement import AnnulationRecu, bloc_annulation

STATUT_LIBELLE = {"VALIDE": "PAYÉ", "ANNULE": "ANNULÉ", "REMBOURSE": "REMBOURSÉ"}


@dataclass(frozen=True)
class LigneRecu:
    reference: str
    libelle: str
    montant: Decimal
    # What the member still owes on this item once this payment is counted; None for non-debt lines.
    reste_du: Decimal | None


@dataclass(frozen=True)
class RecuData:
    numero: str
    organisation: str
    organisation_adresse: list[str]
    logo: bytes | None
    membre: str
    numero_membre: str
    montant: Decimal
    devise: str
    methode: str
    statut: str
    reference: str | None
    date: datetime
    lignes: list[LigneRecu]
    non_affecte: Decimal
    # Who received the money (the treasurer who recorded or confirmed it) and, when it is someone else, who
    # declared it (the member): names where known, else the login.
    recu_par: str | None
    declare_par: str | None
    verification_url: str
    # Cancelled or refunded: who asked, who approved and why, printed under the title.
    annulation: AnnulationRecu | None = None
    # A declaration the treasurer corrected at confirmation: the method the member declared and the treasury
    # the money entered (its name), printed under the method.
    methode_declaree: str | None = None
    tresorerie: str | None = None
    # what became of this receipt's credit (``non_affecte``: the credit it created) since: (what, amount),
    # e.g. ("utilisé sur COT-2026-…", 2 500), ("remboursé (RMB-…)", 1 000).
    avoir_utilise: list[tuple[str, Decimal]] = field(default_factory=list)


def methode_libelle(methode: str) -> str:
    return METHODE_PAIEMENT.get(methode, methode.replace("_", " ").capitalize())


def _qr_png(url: str) -> io.BytesIO:
    image = qrcode.make(url, box_size=6, border=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    buffer.seek(0)
    return buffer


def render_recu(data: RecuData) -> bytes:
    pdf, text = document_a5(f"Reçu {data.numero}", data.organisation)
    width = pdf.epw
    entete(pdf, numero=data.numero, organisation=data.organisation, adresse=data.organisation_adresse,
           logo=data.logo, qr=_qr_png(data.verification_url))

    text(f"REÇU DE PAIEMENT N° {data.numero}", 12, "B", "C", 7)
    if data.statut != StatutPaiement.VALIDE:
        text(STATUT_LIBELLE.get(data.statut, data.statut), 12, "B", "C", 7)
    if data.annulation is not None:
        bloc_annulation(pdf, data.annulation)
    pdf.ln(2)
    text(f"Reçu de : {data.membre} — membre n° {data.numero_membre}")
    text(f"Date : {data.date.strftime('%d/%m/%Y à %H:%M')} (UTC)")
    methode = methode_libelle(data.methode)
    text(f"Mode de paiement : {methode}" + (f" — référence {data.reference}" if data.reference else ""))
    if data.methode_declaree is not None:
        text(f"Corrigé à la confirmation — déclaré : {methode_libelle(data.methode_declaree)}"
             + (f" ; encaissé sur : {data.tresorerie}" if data.tresorerie else ""))
    pdf.ln(2)

    bold = FontFace(emphasis="BOLD")
    pdf.set_font("DejaVu", "", 8)
    with pdf.table(col_widths=(35, 43, 25, 25), text_align=("LEFT", "LEFT", "RIGHT", "RIGHT"),
                   headings_style=bold, line_height=4.5) as table:
        table.row(("Référence", "Objet", "Montant payé", "Reste à payer"))
        for ligne in data.lignes:
            reste = "—" if ligne.reste_du is None else format_montant(ligne.reste_du, data.devise)
            table.row((ligne.reference, ligne.libelle, format_montant(ligne.montant, data.devise), reste))
        if data.non_affecte > 0:
            table.row(("", "Avoir créé (avance, trop-perçu)", format_montant(data.non_affecte, data.devise), "—"))
        total_reste = sum((ligne.reste_du or Decimal(0) for ligne in data.lignes), Decimal(0))
        row = table.row(style=bold)
        row.cell("TOTAL", colspan=2)
        row.cell(format_montant(data.montant, data.devise))
        row.cell(format_montant(total_reste, data.devise))
    pdf.ln(3)
    text(f"Arrêté le présent reçu à la somme de : {montant_en_lettres(data.montant, data.devise)} "
         f"({format_montant(data.montant, data.devise)}).", 9, "B")
    if data.non_affecte > 0:
        text(f"Avoir créé : {format_montant(data.non_affecte, data.devise)}", 8, "B")
        for quoi, montant in data.avoir_utilise:
            text(f"Avoir {quoi} : {format_montant(montant, data.devise)}", 8)
        restant = data.non_affecte - sum((m for _, m in data.avoir_utilise), Decimal(0))
        if data.statut == StatutPaiement.VALIDE:
            text(f"Avoir restant : {format_montant(restant, data.devise)}", 8)
    pdf.ln(6)
    pdf.set_font("DejaVu", "", 8)
    if data.declare_par:
        text(f"Déclaré par : {data.declare_par}", 8)
    signataire = f"Reçu par : {data.recu_par}" if data.recu_par else ""
    pdf.cell(width / 2, 5, signataire)
    pdf.cell(width / 2, 5, "Le trésorier (signature et cachet)", align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(14)
    text(f"Vérifier ce reçu : {data.verification_url}", 6.5, "", "L", 3.5)
    return bytes(pdf.output())
