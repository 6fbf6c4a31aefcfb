"""The register of donations as a printable table (PDF to sign) and a workbook (XLSX)."""

from __future__ import annotations

from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau
from unionflow.dons.schemas import LigneRegistreDonResponse, RegistreDonsResponse
from unionflow.models.don import TypeDonateur

M = Nature.MONTANT


def _identite(x: LigneRegistreDonResponse) -> str:
    if x.type_donateur is TypeDonateur.ANONYME:
        return "Anonyme"
    pieces = [x.donateur_nom or "", x.donateur_telephone or "",
              f"Pièce {x.donateur_piece_identite}" if x.donateur_piece_identite else "",
              f"RCCM {x.donateur_rccm}" if x.donateur_rccm else "",
              f"NINEA {x.donateur_ninea}" if x.donateur_ninea else ""]
    return " — ".join(p for p in pieces if p)


def _forme(x: LigneRegistreDonResponse) -> str:
    if x.description_nature:
        return f"{x.forme.value}: {x.description_nature} (évaluation: {x.base_evaluation})"
    return x.forme.value


def registre(r: RegistreDonsResponse) -> Tableau:
    colonnes = [Colonne("N°", Nature.ENTIER, 0.5), Colonne("Date", Nature.DATE, 1), Colonne("Donateur", largeur=2.6),
                Colonne("Forme", largeur=2), Colonne("Montant", M, 1.2), Colonne("Affectation", largeur=1.4),
                Colonne("Référence", largeur=1.5), Colonne("LCB-FT", largeur=0.6)]
    lignes = [[x.numero, x.date_don, _identite(x), _forme(x), x.montant, x.affectation or "", x.reference,
               "oui" if x.seuil_lcbft_atteint else ""] for x in r.lignes]
    total = ["", "", "Total", f"dont en nature: {r.total_nature}", r.total, "", "", ""]
    president = f"Le Président, représentant légal : {r.president}" if r.president else "Le Président"
    return Tableau(
        titre="Registre des dons et legs", organisation=r.organisation,
        sous_titre=f"Période du {r.debut:%d/%m/%Y} au {r.fin:%d/%m/%Y}", colonnes=colonnes,
        blocs=[Bloc(None, lignes, total)], devise=r.devise, paysage=True,
        notes=[f"LCB-FT: « oui » marque un don d'un montant au moins égal au seuil d'opération unique de "
               f"l'organisation ({r.seuil_lcbft} {r.devise}).",
               "Chaque ligne est scellée (SHA-256 chaîné sur la ligne précédente); "
               "GET /api/comptabilite/registre-dons/verifier vérifie la chaîne."],
        signataires=("Le Trésorier", president))
