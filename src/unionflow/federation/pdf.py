"""The consolidated statements as a printable table (PDF) and a workbook (XLSX), through core/tableaux.py like
each organisation's statements: the trial balance with its « Éliminations » columns, the income statement, then
the balance sheet."""

from __future__ import annotations

from unionflow.core import tableaux
from unionflow.core.pdf_etats import SIGNATAIRES_ETATS
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau
from unionflow.federation.schemas import EtatsConsolidesResponse, PosteResultat

M = Nature.MONTANT


def _poste(p: PosteResultat, credit: bool = False) -> tuple[object, ...]:
    """A charge in the debit columns, a product (or an excédent) in the credit columns."""
    if credit:
        return (p.numero_compte, p.libelle, "", p.cumule, "", p.eliminations, "", p.consolide)
    return (p.numero_compte, p.libelle, p.cumule, "", p.eliminations, "", p.consolide, "")


def etats_consolides(e: EtatsConsolidesResponse, edite_par: str = "") -> Tableau:
    colonnes = [Colonne("Compte", largeur=1.0), Colonne("Intitulé", largeur=3.0),
                Colonne("Débit cumulé", M, 1.4), Colonne("Crédit cumulé", M, 1.4),
                Colonne("Éliminations débit", M, 1.4), Colonne("Éliminations crédit", M, 1.4),
                Colonne("Débit consolidé", M, 1.4), Colonne("Crédit consolidé", M, 1.4)]
    t = e.totaux_balance
    balance = Bloc("Balance consolidée (mouvements de la période)",
                   [(lg.numero_compte, lg.libelle, lg.debit_cumule, lg.credit_cumule, lg.debit_eliminations,
                     lg.credit_eliminations, lg.debit_consolide, lg.credit_consolide) for lg in e.balance],
                   ("TOTAL", "", t.debit_cumule, t.credit_cumule, t.debit_eliminations, t.credit_eliminations,
                    t.debit_consolide, t.credit_consolide))
    # The income statement in the same columns: charges on the debit side, products and an excédent on the credit
    # side (a déficit on the debit side), as a trial balance reads.
    charges = Bloc("Compte de résultat — charges", [_poste(p) for p in e.charges], _poste(e.total_charges))
    produits = Bloc("Compte de résultat — produits", [_poste(p, True) for p in e.produits],
                    _poste(e.total_produits, True))
    resultat = Bloc(None, [_poste(e.resultat, e.resultat.consolide >= 0)])
    # The balance sheet at the end of the period in the consolidated columns: assets debit, liabilities credit.
    b = e.bilan
    actif = Bloc(f"Bilan consolidé au {e.date_fin:%d/%m/%Y} — actif",
                 [(p.numero_compte, f"{r.rubrique}: {p.libelle}", "", "", "", "", p.montant, "")
                  for r in b.actif for p in r.postes], ("TOTAL", "Total de l'actif", "", "", "", "", b.total_actif, ""))
    passif = Bloc(f"Bilan consolidé au {e.date_fin:%d/%m/%Y} — passif",
                  [(p.numero_compte, f"{r.rubrique}: {p.libelle}", "", "", "", "", "", p.montant)
                   for r in b.passif for p in r.postes]
                  + [("", r.rubrique, "", "", "", "", "", r.total) for r in b.passif if not r.postes],
                  ("TOTAL", "Total du passif", "", "", "", "", "", b.total_passif))
    notes = [f"Périmètre: {len(e.perimetre)} organisation(s). Consolidé = Σ des organisations − éliminations.",
             "Éliminations: quotes-parts versées et reçues dans le périmètre (6584 / 7584) — pièces "
             + (", ".join(e.pieces_eliminees) or "aucune") + "."]
    return Tableau(titre="États consolidés", organisation=e.federation,
                   sous_titre=f"Période du {e.date_debut:%d/%m/%Y} au {e.date_fin:%d/%m/%Y}",
                   colonnes=colonnes, blocs=[balance, charges, produits, resultat, actif, passif], notes=notes,
                   devise=e.devise, paysage=True, edite_par=edite_par, edite_le=e.calcule_le,
                   # Signed like each organisation's statements, by the federation's officers and its auditor.
                   signataires=SIGNATAIRES_ETATS)


def rendre(e: EtatsConsolidesResponse, fmt: str, edite_par: str) -> tuple[bytes, str, str]:
    """(content, media type, file name) of the consolidated statements as ``pdf`` or ``xlsx``: one rendering for
    the API and the console."""
    content, media = tableaux.rendu(etats_consolides(e, edite_par), fmt)
    return content, media, f"etats-consolides-{e.date_fin:%Y-%m-%d}.{fmt}"
