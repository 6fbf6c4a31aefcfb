"""The livre d'inventaire and the general-assembly pack as printable documents (core/pdf_etats.py: heading,
"Page n / N", signature blocks) and the inventory as a workbook."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from unionflow.assemblee.schemas import (
    DossierAssembleeResponse,
    InventaireResponse,
    NatureChiffre,
    RubriqueInventaire,
)
from unionflow.assemblee.service import Dossier
from unionflow.comptabilite.sycebnl import tableaux as sycebnl
from unionflow.core import tableaux
from unionflow.core.montants import format_montant
from unionflow.core.pdf_etats import SIGNATAIRES_ETATS
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau

M = Nature.MONTANT


def _lignes(rubriques: list[RubriqueInventaire]) -> list[Bloc]:
    blocs = []
    for r in rubriques:
        lignes: list[list[Any]] = []
        for c in r.comptes:
            lignes.append([c.numero_compte or "", c.libelle, "", c.solde])
            lignes += [["", f"    {d.libelle}", d.montant, ""] for d in c.details]
            if c.details_concordent is False:
                lignes.append(["", "    ATTENTION : le détail ne totalise pas le solde du compte", "", ""])
        blocs.append(Bloc(r.rubrique, lignes, ("", f"Total {r.rubrique[:1].lower()}{r.rubrique[1:]}", "", r.total)))
    return blocs


def inventaire(e: InventaireResponse) -> Tableau:
    colonnes = [Colonne("Compte", largeur=0.9), Colonne("Élément inventorié", largeur=4.4),
                Colonne("Détail", M, 1.4), Colonne("Montant", M, 1.5)]
    blocs = [Bloc("ACTIF", []), *_lignes(e.actif), Bloc(None, [], ("", "TOTAL ACTIF", "", e.total_actif)),
             Bloc("PASSIF", []), *_lignes(e.passif), Bloc(None, [], ("", "TOTAL PASSIF", "", e.total_passif))]
    for section in e.hors_bilan:
        blocs.append(Bloc(f"HORS BILAN — {section.titre}",
                          [["", d.libelle + (f" ({d.nombre} cotisation{'s' if (d.nombre or 0) > 1 else ''})"
                                             if d.nombre else ""), d.montant, ""] for d in section.details],
                          ("", "Total", "", section.total)))
    notes = [("Totaux égaux à ceux du bilan SYCEBNL de l'exercice (actif = passif)." if e.equilibre
              else "ATTENTION : total actif différent du total passif."),
             "Chaque compte de bilan (classes 1 à 5) à son solde de clôture, classé selon la table de correspondance "
             "SYCEBNL; en retrait le détail tenu par les registres (avoirs des membres par membre).",
             *(f"{s.titre} : {s.commentaire}" for s in e.hors_bilan)]
    etat = "au" if (e.date_inventaire.month, e.date_inventaire.day) == (12, 31) else "(exercice en cours) au"
    return Tableau(titre="Livre d'inventaire", organisation=e.organisation,
                   sous_titre=f"Exercice {e.exercice} — inventaire {etat} {e.date_inventaire:%d/%m/%Y}",
                   colonnes=colonnes, blocs=blocs, notes=notes, devise=e.devise, edite_le=e.calcule_le,
                   signataires=SIGNATAIRES_ETATS, arrete=e.arrete.en_arrete(e.exercice))


def _activite(r: DossierAssembleeResponse) -> Tableau:
    # Values already written out (an amount, a count, a rate): right-aligned like figures.
    colonnes = [Colonne("Indicateur", largeur=4), Colonne(f"Exercice {r.exercice}", Nature.ENTIER, 1.5),
                Colonne(f"Exercice {r.exercice - 1}", Nature.ENTIER, 1.5)]
    lignes = [[c.libelle, _texte(c.valeur_n, c.nature, r.devise), _texte(c.valeur_n1, c.nature, r.devise)]
              for c in r.activite]
    return Tableau(titre="Chiffres d'activité", organisation=r.organisation, colonnes=colonnes,
                   blocs=[Bloc(None, lignes)], devise=r.devise,
                   sous_titre="Membres (dates d'adhésion et de sortie), cotisations de l'année (encaissé à la date "
                              "d'édition), aides (décisions et versements de l'année), événements tenus.")


def _texte(valeur: str, nature: NatureChiffre, devise: str) -> str:
    return format_montant(Decimal(valeur), devise) if nature is NatureChiffre.MONTANT else valeur.replace(".", ",")


def _dons(r: DossierAssembleeResponse) -> Tableau:
    colonnes = [Colonne("Forme", largeur=2.5), Colonne(f"Nombre {r.exercice}", Nature.ENTIER, 1),
                Colonne(f"Montant {r.exercice}", M, 1.5), Colonne(f"Nombre {r.exercice - 1}", Nature.ENTIER, 1),
                Colonne(f"Montant {r.exercice - 1}", M, 1.5)]
    lignes = [[d.forme, d.nombre_n, d.montant_n, d.nombre_n1, d.montant_n1] for d in r.dons]
    total = ["Total", sum(d.nombre_n for d in r.dons), sum((d.montant_n for d in r.dons), Decimal(0)),
             sum(d.nombre_n1 for d in r.dons), sum((d.montant_n1 for d in r.dons), Decimal(0))]
    return Tableau(titre="Registre des dons et legs — totaux", organisation=r.organisation, colonnes=colonnes,
                   blocs=[Bloc(None, lignes or [["Aucun don enregistré", "", "", "", ""]], total)],
                   devise=r.devise, sous_titre="Lignes du registre scellé par forme (une contre-ligne d'annulation "
                                               "se déduit).")


def _section(t: Tableau) -> Tableau:
    """A statement inside the pack: its title and period, its notes, no signatures of its own."""
    t.signataires = ()
    return t


def couverture(r: DossierAssembleeResponse, fin: date, alertes: Sequence[str] = ()) -> list[str]:
    jours = r.jours_avant_assemblee
    # A pack printed after the assembly (a late copy, an old year) says so in words, not as « -917 jours avant ».
    quand = f"{jours} jours avant l'assemblée" if jours >= 0 else f"{-jours} jours après la date de l'assemblée"
    delai = (f"Délai respecté : {quand} (au moins {r.delai_minimum_jours})." if r.delai_respecte else
             f"ATTENTION : délai NON respecté, dossier prêt {quand} (au moins {r.delai_minimum_jours} jours "
             "avant, demandés).")
    etat = "clos le" if (fin.month, fin.day) == (12, 31) else "en cours, situation au"
    return ["Dossier de l'assemblée générale", r.organisation, f"Exercice {r.exercice} {etat} {fin:%d/%m/%Y}",
            f"Assemblée générale du {r.date_assemblee:%d/%m/%Y}", f"Dossier prêt le {r.pret_le:%d/%m/%Y}", delai,
            r.arrete.mention, *([r.arrete.avertissement] if r.arrete.avertissement else []),
            *(f"ATTENTION : {a}" for a in alertes),
            "(Règle des 45 jours : source SYCEBNL non vérifiée.)", "", "Contenu :", *r.etats]


def dossier_pdf(d: Dossier, edite_par: str) -> bytes:
    r = d.resume
    sections = [_section(sycebnl.bilan(d.bilan)), _section(sycebnl.compte_resultat(d.compte_resultat)),
                _section(sycebnl.flux_tresorerie(d.flux)), *sycebnl.notes_sections(d.notes), _activite(r), _dons(r)]
    return tableaux.pdf_dossier(f"Dossier de l'assemblée générale — exercice {r.exercice}", r.organisation,
                                f"Assemblée générale du {r.date_assemblee:%d/%m/%Y}", sections, SIGNATAIRES_ETATS,
                                edite_par, couverture=couverture(r, d.bilan.date_fin, d.bilan.alertes),
                                arrete=r.arrete.en_arrete(r.exercice))
