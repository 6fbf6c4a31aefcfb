"""The member's data as a readable PDF: one heading per section, one block per row (« colonne : valeur »)."""

from __future__ import annotations

from typing import Any

from unionflow.core.pdf_etats import DocumentEtat, EnTeteEtat
from unionflow.donnees_membre.schemas import DonneesMembreResponse
from unionflow.models.membre import Membre


def _texte(value: Any) -> str:
    if value is None:
        return "—"
    return str(value)


def rendre(membre: Membre, donnees: DonneesMembreResponse, edite_par: str) -> bytes:
    entete = EnTeteEtat(organisation="UnionFlow", titre=f"Données personnelles de {membre.prenom} {membre.nom} "
                                                        f"({membre.numero_membre})",
                        periode=f"Au {donnees.genere_le:%d/%m/%Y}", edite_par=edite_par,
                        edite_le=donnees.genere_le)
    doc = DocumentEtat(entete)
    doc.add_page()
    doc.set_font("DejaVu", "", 8)
    doc.multi_cell(doc.epw, 4, donnees.fondement, new_x="LMARGIN", new_y="NEXT")
    for section in donnees.sections:
        doc.ln(2)
        doc.set_font("DejaVu", "B", 10)
        doc.multi_cell(doc.epw, 5.5, f"{section.titre} ({len(section.lignes)})", new_x="LMARGIN", new_y="NEXT")
        doc.set_font("DejaVu", "", 7.5)
        if not section.lignes:
            doc.multi_cell(doc.epw, 4, "Aucune donnée.", new_x="LMARGIN", new_y="NEXT")
        for numero, row in enumerate(section.lignes, start=1):
            texte = " · ".join(f"{k} : {_texte(v)}" for k, v in row.items())
            doc.multi_cell(doc.epw, 3.8, f"{numero}. {texte}", new_x="LMARGIN", new_y="NEXT")
    return bytes(doc.output())
