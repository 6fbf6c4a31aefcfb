"""French labels of status and type codes, for documents people read (exports, receipts, statements).
The API keeps the codes; a spreadsheet or a receipt shows the words."""

from __future__ import annotations

from collections.abc import Mapping

METHODE_PAIEMENT: Mapping[str, str] = {
    "WAVE": "Wave Mobile Money",
    "ESPECES": "Espèces",
    "VIREMENT": "Virement bancaire",
    "CHEQUE": "Chèque",
    "ORANGE_MONEY": "Orange Money",
    "FREE_MONEY": "Free Money",
    "CARTE": "Carte bancaire",
    "AUTRE": "Autre moyen de paiement",
    "WAVE_TRANSFERT": "Transfert Wave",
}
# The same inside a sentence or a ledger line ("Reçu REC-1 (espèces)"): lower case except brand names.
METHODE_EN_MOTS: Mapping[str, str] = {
    "ESPECES": "espèces", "WAVE": "Wave", "VIREMENT": "virement bancaire", "CHEQUE": "chèque",
    "ORANGE_MONEY": "Orange Money", "FREE_MONEY": "Free Money", "CARTE": "carte bancaire",
    "AUTRE": "autre moyen de paiement", "WAVE_TRANSFERT": "transfert Wave",
}
STATUT_PAIEMENT: Mapping[str, str] = {
    "EN_ATTENTE": "En attente", "VALIDE": "Validé", "ECHOUE": "Échoué", "EXPIRE": "Expiré", "ANNULE": "Annulé",
    "REMBOURSE": "Remboursé",
}
STATUT_COTISATION: Mapping[str, str] = {
    "EN_ATTENTE": "En attente", "PARTIELLEMENT_PAYEE": "Partiellement payée", "PAYEE": "Payée",
    "EN_RETARD": "En retard", "ANNULEE": "Annulée",
}
STATUT_ADHESION: Mapping[str, str] = {
    "EN_ATTENTE": "En attente", "APPROUVEE": "Approuvée", "REJETEE": "Rejetée", "PAYEE": "Payée",
    "ANNULEE": "Annulée",
}
STATUT_MEMBRE: Mapping[str, str] = {"ACTIF": "Actif", "INACTIF": "Inactif", "SUSPENDU": "Suspendu",
                                     "RADIE": "Radié"}
STATUT_APPARTENANCE: Mapping[str, str] = {"ACTIF": "Active", "SUSPENDU": "Suspendue", "TERMINE": "Terminée"}
GENRE: Mapping[str, str] = {"MASCULIN": "Masculin", "FEMININ": "Féminin"}
TYPE_COTISATION: Mapping[str, str] = {
    "MENSUELLE": "Mensuelle", "TRIMESTRIELLE": "Trimestrielle", "SEMESTRIELLE": "Semestrielle",
    "ANNUELLE": "Annuelle", "EXCEPTIONNELLE": "Exceptionnelle", "SOLIDARITE": "Solidarité",
}


def libelle(codes: Mapping[str, str], code: str | None) -> str | None:
    """The label of ``code``; an unknown code is shown as written rather than hidden."""
    if code is None:
        return None
    return codes.get(code, code)
