"""The SMT statements as printable tables (PDF to sign) and workbooks (XLSX)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from unionflow.comptabilite.smt import schemas as s
from unionflow.core.montants import format_montant
from unionflow.core.pdf_etats import SIGNATAIRES_ETATS
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau

M = Nature.MONTANT
REFERENTIEL = "SYCEBNL — système minimal de trésorerie"


def _tableau(e: s.EnteteSmt, titre: str, colonnes: list[Colonne], blocs: list[Bloc], notes: list[str],
             paysage: bool = False, referentiel: str = REFERENTIEL) -> Tableau:
    periode = f"Exercice {e.exercice} : du {e.date_debut:%d/%m/%Y} au {e.date_fin:%d/%m/%Y} — {referentiel}"
    return Tableau(titre=titre, organisation=e.organisation, sous_titre=periode, colonnes=colonnes, blocs=blocs,
                   notes=notes, devise=e.devise, paysage=paysage, edite_le=e.calcule_le,
                   signataires=SIGNATAIRES_ETATS, arrete=e.arrete.en_arrete(e.exercice))


def eligibilite(e: s.EligibiliteSmtResponse) -> Tableau:
    colonnes = [Colonne("Ressources de l'exercice", largeur=3.2), Colonne("Montant", M, 1.5),
                Colonne("Seuil", M, 1.5), Colonne("Au-delà du seuil", largeur=1.2)]
    lignes = [(r.libelle, r.montant, r.seuil, "oui" if r.depasse else ("non" if r.seuil is not None else "—"))
              for r in e.ressources]
    total = ("TOTAL DES RESSOURCES", e.total_ressources, e.seuil_ressources,
             "oui" if e.total_ressources > e.seuil_ressources else "non")
    verdict = "ÉLIGIBLE" if e.eligible else "NON ÉLIGIBLE"
    notes = [f"Éligibilité au système minimal de trésorerie : {verdict}.",
             f"Référentiel en vigueur pour l'exercice : {e.referentiel.value}.",
             *[f"ATTENTION : {a}" for a in e.alertes]]
    # Its heading names the referential in force, not the one being tested.
    return _tableau(e, "Éligibilité au système minimal de trésorerie", colonnes, [Bloc(None, lignes, total)], notes,
                    referentiel=f"référentiel en vigueur : {e.referentiel.value}")


def _rubriques(titre: str, rubriques: list[s.RubriqueCaisse], total: Any) -> list[Bloc]:
    blocs = [Bloc(titre, [])]
    blocs += [Bloc(r.libelle, [(p.numero_compte, p.libelle, p.montant) for p in r.postes],
                   ("", f"Total {r.libelle.lower()}", r.total)) for r in rubriques]
    blocs.append(Bloc(None, [], ("", f"TOTAL {titre}", total)))
    return blocs


def recettes_depenses(e: s.RecettesDepensesResponse) -> Tableau:
    colonnes = [Colonne("Compte", largeur=1), Colonne("Nature", largeur=4), Colonne("Montant", M, 1.6)]
    blocs = [*_rubriques("RECETTES", e.recettes, e.total_recettes),
             *_rubriques("DÉPENSES", e.depenses, e.total_depenses),
             Bloc(None, [("", "Trésorerie au début de l'exercice", e.tresorerie_ouverture),
                         ("", "Excédent (ou déficit) de trésorerie de l'exercice", e.solde),
                         ("", "Trésorerie à la fin de la période", e.tresorerie_cloture)])]
    concorde = e.tresorerie_ouverture + e.solde == e.tresorerie_cloture
    notes = ["Recettes et dépenses encaissées ou décaissées (caisse, banque, mobile money), par nature de la "
             "contrepartie ; les virements entre trésoreries n'y figurent pas.",
             "Trésorerie début + recettes − dépenses = trésorerie fin." if concorde
             else "ATTENTION : trésorerie début + recettes − dépenses ≠ trésorerie fin."]
    return _tableau(e, "État des recettes et des dépenses", colonnes, blocs, notes)


def tresorerie(e: s.SituationTresorerieResponse) -> Tableau:
    colonnes = [Colonne("Compte", largeur=0.9), Colonne("Trésorerie", largeur=2.6), Colonne("Ouverture", M, 1.4),
                Colonne("Entrées", M, 1.4), Colonne("Sorties", M, 1.4), Colonne("Clôture", M, 1.4),
                Colonne("Solde comptable", M, 1.4)]
    lignes = [(t.numero_compte, t.nom, t.ouverture, t.entrees, t.sorties, t.cloture, t.solde_comptable)
              for t in e.tresoreries]
    total = ("", "TOTAL", e.total_ouverture, e.total_entrees, e.total_sorties, e.total_cloture,
             sum((t.solde_comptable for t in e.tresoreries), Decimal(0)))
    ecarts = [f"ATTENTION : {t.numero_compte} {t.nom} — clôture {format_montant(t.cloture, e.devise)} ≠ solde "
              f"comptable {format_montant(t.solde_comptable, e.devise)}" for t in e.tresoreries if not t.concorde]
    notes = ecarts or ["Chaque clôture concorde avec le solde du compte de classe 5 de la trésorerie."]
    return _tableau(e, "Situation de trésorerie", colonnes, [Bloc(None, lignes, total)], notes, paysage=True)


def journal(e: s.JournauxTresorerieResponse) -> Tableau:
    colonnes = [Colonne("Date", Nature.DATE, 1), Colonne("Pièce", largeur=1.5), Colonne("Jnl", largeur=0.6),
                Colonne("Libellé", largeur=4), Colonne("Contrepartie", largeur=1.3), Colonne("Entrée", M, 1.3),
                Colonne("Sortie", M, 1.3), Colonne("Solde", M, 1.4)]
    blocs = []
    for j in e.journaux:
        lignes: list[Sequence[Any]] = [(None, "", "", "Solde d'ouverture", "", None, None, j.solde_ouverture)]
        # An empty cell, not "0 FCFA", on the side a movement is not: the column read is the one filled.
        lignes += [(m.date_ecriture, m.numero_piece, m.code_journal, m.libelle, m.contrepartie, m.entree or None,
                    m.sortie or None, m.solde) for m in j.mouvements]
        blocs.append(Bloc(f"{j.numero_compte} — {j.nom}", lignes,
                          (None, "", "", "Totaux et solde de clôture", "", j.total_entrees, j.total_sorties,
                           j.solde_cloture)))
    titre = "Journal de trésorerie" if len(e.journaux) == 1 else "Journaux de trésorerie"
    return _tableau(e, titre, colonnes, blocs, ["Un journal par caisse, banque et compte de mobile money : "
                                                "mouvements dans l'ordre chronologique, solde cumulé."],
                    paysage=True)
