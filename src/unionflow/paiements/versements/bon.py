"""The payout voucher (« bon de décaissement »): the sheet a treasurer prints for each payout and has signed —
by himself, by the person who approved it and by the beneficiary, who writes that he received the sum. It is what
an auditor asks for next to each cash or bank outflow, as the receipt is for each inflow."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from fpdf import FPDF

from unionflow.core.montants import format_montant, montant_en_lettres
from unionflow.models.versement import StatutVersement
from unionflow.paiements.recus.pdf_commun import document_a5, entete

OBJETS = {"COTISATIONS": "Reversement de cotisations", "ADHESIONS": "Reversement de frais d'adhésion",
          "AIDE": "Aide accordée", "AUTRE": "Autre dépense", "QUOTE_PART": "Quote-part versée à la fédération"}
# A voucher is printed before the money leaves too (to be signed when cash is handed over): the status says so.
MENTIONS = {StatutVersement.EN_COURS: "Versement préparé, pas encore exécuté",
            StatutVersement.ECHOUE: "Versement ÉCHOUÉ — aucune somme n'est sortie",
            StatutVersement.ANNULE: "Versement ANNULÉ — aucune somme n'est sortie"}


@dataclass(frozen=True)
class BonData:
    numero: str
    organisation: str
    organisation_adresse: list[str]
    logo: bytes | None
    date: datetime
    statut: str
    beneficiaire: str
    beneficiaire_telephone: str | None
    montant: Decimal
    devise: str
    objet: str
    motif: str
    mode: str
    reference: str | None
    tresorerie: str
    prepare_par: str
    confirme_par: str | None
    approuve_par: str | None


def render_bon(data: BonData) -> bytes:
    pdf, text = document_a5(f"Bon de décaissement {data.numero}", data.organisation)
    entete(pdf, numero=data.numero, organisation=data.organisation, adresse=data.organisation_adresse,
           logo=data.logo)
    text(f"BON DE DÉCAISSEMENT N° {data.numero}", 12, "B", "C", 7)
    text(f"Date : {data.date.strftime('%d/%m/%Y')}", 9, "", "C")
    if data.statut in MENTIONS:
        text(MENTIONS[StatutVersement(data.statut)], 9, "B", "C")
    pdf.ln(3)
    telephone = f" — {data.beneficiaire_telephone}" if data.beneficiaire_telephone else ""
    text(f"Bénéficiaire : {data.beneficiaire}{telephone}")
    text(f"Montant : {format_montant(data.montant, data.devise)}", 10, "B")
    text(f"Soit : {montant_en_lettres(data.montant, data.devise)}")
    text(f"Objet : {OBJETS.get(data.objet, data.objet)}")
    text(f"Motif : {data.motif}")
    reference = f" — référence {data.reference}" if data.reference else ""
    text(f"Sortie de : {data.tresorerie} ({'Wave' if data.mode == 'WAVE' else 'manuel'}){reference}")
    pdf.ln(2)
    text(f"Préparé par : {data.prepare_par}", 8)
    if data.approuve_par:
        text(f"Approuvé par : {data.approuve_par}", 8)
    text(f"Confirmé par : {data.confirme_par or '(en attente de confirmation)'}", 8)
    pdf.ln(4)
    text(f"Reçu la somme de {montant_en_lettres(data.montant, data.devise)} "
         f"({format_montant(data.montant, data.devise)}).", 9)
    _signatures(pdf)
    return bytes(pdf.output())


def _signatures(pdf: FPDF) -> None:
    """Three columns: who pays, who approved, who received."""
    colonne = pdf.epw / 3
    pdf.ln(4)
    pdf.set_font("DejaVu", "", 8)
    for libelle in ("Le trésorier", "L'approbateur", "Signature du bénéficiaire"):
        pdf.cell(colonne, 5, libelle, align="C")
    pdf.ln(18)
    for _ in range(3):
        pdf.cell(colonne, 5, "." * 28, align="C")
    pdf.ln(5)
