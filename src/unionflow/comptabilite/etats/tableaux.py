"""Statements as printable tables (PDF) and workbooks (XLSX): one ``Tableau`` per statement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unionflow.comptabilite.etats.schemas import (
    BalanceGeneraleResponse,
    BilanResponse,
    CompteResultatResponse,
    EnteteEtat,
    GrandLivreResponse,
    JournalEtatResponse,
    RubriqueEtat,
)
from unionflow.core.montants import montant_en_lettres
from unionflow.core.pdf_etats import SIGNATAIRES_ETATS
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau

M = Nature.MONTANT


def _periode(e: EnteteEtat) -> str:
    if e.date_debut is None:
        return f"Situation au {e.date_fin:%d/%m/%Y}"
    return f"Période du {e.date_debut:%d/%m/%Y} au {e.date_fin:%d/%m/%Y}"


def _tableau(e: EnteteEtat, titre: str, colonnes: list[Colonne], blocs: list[Bloc], notes: list[str] | None = None,
             paysage: bool = False) -> Tableau:
    # Dated by the computation it prints; the caller names who printed it (``edite_par``).
    return Tableau(titre=titre, organisation=e.organisation, sous_titre=_periode(e), colonnes=colonnes, blocs=blocs,
                   notes=notes or [], devise=e.devise, paysage=paysage, edite_le=e.calcule_le,
                   signataires=SIGNATAIRES_ETATS, arrete=e.arrete.en_arrete(e.date_fin.year) if e.arrete else None)


def balance(e: BalanceGeneraleResponse) -> Tableau:
    t = e.totaux
    colonnes = [Colonne("Compte", largeur=1.1), Colonne("Intitulé", largeur=3), Colonne("Débit ouverture", M, 1.4),
                Colonne("Crédit ouverture", M, 1.4), Colonne("Débit période", M, 1.4),
                Colonne("Crédit période", M, 1.4), Colonne("Solde débiteur", M, 1.4),
                Colonne("Solde créditeur", M, 1.4)]
    lignes = [(lg.numero_compte, lg.libelle, lg.debit_ouverture, lg.credit_ouverture, lg.debit_periode,
               lg.credit_periode, lg.solde_debiteur, lg.solde_crediteur) for lg in e.lignes]
    total = ("TOTAL", "", t.debit_ouverture, t.credit_ouverture, t.debit_periode, t.credit_periode,
             t.solde_debiteur, t.solde_crediteur)
    note = "Balance équilibrée." if e.equilibree else "ATTENTION : balance déséquilibrée."
    return _tableau(e, "Balance générale", colonnes, [Bloc(None, lignes, total)], [note], paysage=True)


def grand_livre(e: GrandLivreResponse) -> Tableau:
    # The label names the member and the receipt of a payment's lines: the widest column.
    colonnes = [Colonne("Date", Nature.DATE, 1), Colonne("Pièce", largeur=1.5), Colonne("Journal", largeur=0.7),
                Colonne("Libellé", largeur=4.4), Colonne("Débit", M, 1.3), Colonne("Crédit", M, 1.3),
                Colonne("Solde", M, 1.4)]
    blocs = []
    for c in e.comptes:
        lignes: list[Sequence[Any]] = [(None, "", "", "Solde d'ouverture", None, None, c.solde_ouverture)]
        lignes += [(m.date_ecriture, m.numero_piece, m.code_journal, m.libelle, m.debit, m.credit, m.solde)
                   for m in c.mouvements]
        blocs.append(Bloc(f"{c.numero_compte} — {c.libelle}", lignes,
                          (None, "", "", "Total et solde de clôture", c.total_debit, c.total_credit,
                           c.solde_cloture)))
    return _tableau(e, "Grand livre", colonnes, blocs, ["Solde: débiteur positif, créditeur négatif."],
                    paysage=True)


def journal(e: JournalEtatResponse) -> Tableau:
    colonnes = [Colonne("Date", Nature.DATE, 1), Colonne("Pièce", largeur=1.5), Colonne("Compte", largeur=0.8),
                Colonne("Libellé", largeur=4.4), Colonne("Débit", M, 1.3), Colonne("Crédit", M, 1.3)]
    blocs = [Bloc(f"{ec.numero_piece} — {ec.libelle}",
                  [(ec.date_ecriture, ec.numero_piece, lg.numero_compte, lg.libelle or lg.libelle_compte, lg.debit,
                    lg.credit) for lg in ec.lignes]) for ec in e.ecritures]
    blocs.append(Bloc(None, [], (None, "", "", "TOTAL DU JOURNAL", e.total_debit, e.total_credit)))
    return _tableau(e, "Journal", colonnes, blocs, paysage=True)


def _rubriques(rubriques: list[RubriqueEtat]) -> list[Bloc]:
    return [Bloc(r.rubrique, [(p.numero_compte, p.libelle, p.montant) for p in r.postes],
                 ("", f"Total {r.rubrique.lower()}", r.total)) for r in rubriques]


def _colonnes_postes() -> list[Colonne]:
    return [Colonne("Compte", largeur=1), Colonne("Poste", largeur=4), Colonne("Montant", M, 1.6)]


def bilan(e: BilanResponse) -> Tableau:
    blocs = [Bloc("ACTIF", []), *_rubriques(e.actif), Bloc(None, [], ("", "TOTAL ACTIF", e.total_actif)),
             Bloc("PASSIF", []), *_rubriques(e.passif), Bloc(None, [], ("", "TOTAL PASSIF", e.total_passif))]
    note = "Bilan équilibré (total actif = total passif)." if e.equilibre else "ATTENTION : bilan déséquilibré."
    # An auditor's first question: cash cannot be negative; each one is said on the printed statement.
    alertes = [f"ATTENTION : {a.message}" for a in e.alertes]
    return _tableau(e, "Bilan", _colonnes_postes(), blocs, [*alertes, note])


def compte_resultat(e: CompteResultatResponse) -> Tableau:
    libelle = "EXCÉDENT" if e.resultat >= 0 else "DÉFICIT"
    blocs = [Bloc("CHARGES", []), *_rubriques(e.charges), Bloc(None, [], ("", "TOTAL CHARGES", e.total_charges)),
             Bloc("PRODUITS", []), *_rubriques(e.produits),
             Bloc(None, [], ("", "TOTAL PRODUITS", e.total_produits)),
             Bloc(None, [], ("", f"RÉSULTAT : {libelle}", abs(e.resultat)))]
    notes = [f"Résultat de la période : {libelle.lower()} de {montant_en_lettres(abs(e.resultat), e.devise)}."]
    return _tableau(e, "Compte de résultat", _colonnes_postes(), blocs, notes)
