"""The SYCEBNL statements as printable tables (PDF to sign, core/pdf_etats.py) and workbooks (XLSX), with the N
and N−1 columns side by side."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from unionflow.comptabilite.sycebnl.schemas import (
    BilanSycebnlResponse,
    CompteResultatSycebnlResponse,
    EnteteSycebnl,
    FluxTresorerieResponse,
    NotesSycebnlResponse,
    RubriqueSycebnl,
)
from unionflow.core import tableaux as pdf_tableaux
from unionflow.core.montants import montant_en_lettres
from unionflow.core.pdf_etats import SIGNATAIRES_ETATS
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau

M = Nature.MONTANT
SUFFIXE = " (SYCEBNL)"


def _colonnes(e: EnteteSycebnl, premiere: str = "Compte", largeur: float = 0.9) -> list[Colonne]:
    return [Colonne(premiere, largeur=largeur), Colonne("Poste", largeur=5.1 - largeur),
            Colonne(f"Exercice {e.exercice}", M, 1.5), Colonne(f"Exercice {e.exercice - 1}", M, 1.5)]


def _tableau(e: EnteteSycebnl, titre: str, colonnes: list[Colonne], blocs: list[Bloc], notes: list[str],
             paysage: bool = False) -> Tableau:
    # The current year is not closed: its statement is a situation at the day it is computed.
    etat = "clos le" if (e.date_fin.month, e.date_fin.day) == (12, 31) else "en cours, situation au"
    sous_titre = (f"Exercice {e.exercice} {etat} {e.date_fin:%d/%m/%Y}, "
                  f"comparé à l'exercice {e.exercice - 1} clos le {e.date_fin_precedent:%d/%m/%Y}")
    # A referential other than the normal system is said first: the signatory reads it before the figures' notes.
    notes = [*(f"ATTENTION : {a}" for a in e.alertes), *notes,
             f"Référentiel en vigueur pour l'exercice {e.exercice} : {e.referentiel.value}."]
    return Tableau(titre=titre + SUFFIXE, organisation=e.organisation, sous_titre=sous_titre, colonnes=colonnes,
                   blocs=blocs, notes=notes, devise=e.devise, paysage=paysage, edite_le=e.calcule_le,
                   signataires=SIGNATAIRES_ETATS, arrete=e.arrete.en_arrete(e.exercice))


def _ref(reference: str | None, titre: str) -> str:
    """A heading as the model's reader looks for it: its line reference first (« RA · Cotisations… »)."""
    return f"{reference} · {titre}" if reference else titre


def _rubriques(rubriques: list[RubriqueSycebnl]) -> list[Bloc]:
    return [Bloc(_ref(r.reference, r.rubrique),
                 [(p.numero_compte or "", p.libelle, p.montant_n, p.montant_n1) for p in r.postes],
                 ("", f"Total {r.rubrique[:1].lower()}{r.rubrique[1:]}", r.total_n, r.total_n1)) for r in rubriques]


def _total(titre: str, n: Decimal, n1: Decimal, reference: str = "") -> Bloc:
    return Bloc(None, [], (reference, titre, n, n1))


NOTE_REFERENCES = ("Réf. : ligne(s) du modèle d'état SYCEBNL que chaque rubrique alimente (d'après des "
                   "transcriptions publiques du modèle).")


def bilan(e: BilanSycebnlResponse) -> Tableau:
    blocs = [Bloc("ACTIF", []), *_rubriques(e.actif),
             _total("TOTAL ACTIF", e.total_actif_n, e.total_actif_n1, "BZ"),
             Bloc("PASSIF", []), *_rubriques(e.passif),
             _total("TOTAL PASSIF", e.total_passif_n, e.total_passif_n1, "DZ")]
    note = ("Bilan équilibré pour les deux exercices (total actif = total passif)." if e.equilibre
            else "ATTENTION : bilan déséquilibré.")
    return _tableau(e, "Bilan", _colonnes(e), blocs,
                    [note, "Postes classés selon la table de correspondance SYCEBNL de l'organisation.",
                     NOTE_REFERENCES])


def compte_resultat(e: CompteResultatSycebnlResponse) -> Tableau:
    libelle = "EXCÉDENT" if e.resultat_n >= 0 else "DÉFICIT"
    blocs = [Bloc("CHARGES", []), *_rubriques(e.charges),
             _total("TOTAL CHARGES", e.total_charges_n, e.total_charges_n1),
             Bloc("PRODUITS", []), *_rubriques(e.produits),
             _total("TOTAL PRODUITS", e.total_produits_n, e.total_produits_n1),
             _total("RÉSULTAT (produits − charges)", e.resultat_n, e.resultat_n1, "XE")]
    if e.contributions_nature:
        blocs += [Bloc("CONTRIBUTIONS VOLONTAIRES EN NATURE (hors résultat)", []),
                  *_rubriques(e.contributions_nature)]
    notes = [f"Résultat de l'exercice {e.exercice} : {libelle.lower()} de "
             f"{montant_en_lettres(abs(e.resultat_n), e.devise)}.", NOTE_REFERENCES]
    return _tableau(e, "Compte de résultat", _colonnes(e), blocs, notes)


def flux_tresorerie(e: FluxTresorerieResponse) -> Tableau:
    blocs = [_total("Trésorerie au 1er janvier (classe 5)", e.tresorerie_ouverture_n, e.tresorerie_ouverture_n1,
                    "ZA")]
    for s in e.sections:
        blocs.append(Bloc(s.rubrique, [(p.reference or "", p.libelle, p.montant_n, p.montant_n1) for p in s.postes],
                          (s.reference or "", f"Flux net {s.rubrique.removeprefix('Flux de trésorerie ')}",
                           s.total_n, s.total_n1)))
    blocs += [_total("VARIATION DE LA TRÉSORERIE", e.variation_n, e.variation_n1, "ZF"),
              _total("TRÉSORERIE À LA CLÔTURE (ouverture + variation)", e.tresorerie_cloture_n,
                     e.tresorerie_cloture_n1, "ZG"),
              _total("Soldes des comptes de classe 5 à la clôture", e.soldes_classe5_n, e.soldes_classe5_n1)]
    note = ("Concordance : trésorerie de clôture = soldes des comptes de classe 5." if e.concordance
            else "ATTENTION : la trésorerie de clôture diffère des soldes de classe 5.")
    return _tableau(e, "Tableau des flux de trésorerie", _colonnes(e, "Réf.", 1.3), blocs,
                    [note, "Méthode directe : chaque encaissement ou décaissement est classé selon le compte de "
                           "contrepartie de l'écriture (positif : encaissement net, négatif : décaissement net).",
                     NOTE_REFERENCES])


def _cellule(valeur: str | None, montant: bool) -> Any:
    return Decimal(valeur) if montant and valeur is not None else (valeur or "")


def notes_sections(e: NotesSycebnlResponse) -> list[Tableau]:
    """One table per note, in the note's own columns (the PDF: one document, each note under its title)."""
    sections = [Tableau(titre="Avertissement", organisation=e.organisation, sous_titre="",
                        colonnes=[Colonne("Référentiel en vigueur")], blocs=[Bloc(None, [(a,) for a in e.alertes])],
                        devise=e.devise)] if e.alertes else []
    for note in e.notes:
        titre = f"Note {note.numero} — {note.titre}"
        if not note.lignes:
            sections.append(Tableau(titre=titre, organisation=e.organisation, sous_titre="",
                                    colonnes=[Colonne("Constat")], blocs=[Bloc(None, [(note.commentaire,)])],
                                    devise=e.devise))
            continue
        colonnes = [Colonne(c, M if m else Nature.TEXTE, 1.4 if m else (3 if i == 1 else 1.1))
                    for i, (c, m) in enumerate(zip(note.colonnes, note.montants, strict=True))]
        lignes = [[_cellule(v, m) for v, m in zip(lg, note.montants, strict=True)] for lg in note.lignes]
        sections.append(Tableau(titre=titre, organisation=e.organisation, sous_titre="", colonnes=colonnes,
                                blocs=[Bloc(None, lignes)], devise=e.devise))
    return sections


def notes(e: NotesSycebnlResponse, nb_colonnes: int = 7) -> Tableau:
    """Every note in one sheet of generic columns (the XLSX): a note's own column titles open its block."""
    colonnes = [Colonne("", largeur=1.2), Colonne("", largeur=3)] + [Colonne("", largeur=1.3)] * (nb_colonnes - 2)
    blocs = []

    def ligne(valeurs: list[Any]) -> list[Any]:
        return valeurs + [""] * (nb_colonnes - len(valeurs))

    for note in e.notes:
        lignes = [ligne(list(note.colonnes))] if note.lignes else []
        lignes += [ligne([_cellule(v, m) for v, m in zip(lg, note.montants, strict=True)]) for lg in note.lignes]
        if note.commentaire:
            lignes.append(ligne([note.commentaire]))
        blocs.append(Bloc(f"Note {note.numero} — {note.titre}", lignes))
    return _tableau(e, "Notes annexes", colonnes, blocs, [], paysage=True)


def notes_pdf(e: NotesSycebnlResponse, edite_par: str) -> bytes:
    """The notes to sign: one document, each note under its own title in its own columns."""
    entete = notes(e)
    return pdf_tableaux.pdf_dossier(entete.titre, e.organisation, entete.sous_titre, notes_sections(e),
                                    SIGNATAIRES_ETATS, edite_par, arrete=entete.arrete)
