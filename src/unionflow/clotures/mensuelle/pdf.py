"""The closing pack of a month: one PDF the treasurer and the president sign.

Sections: the checklist as verified at closing, the cash count, the month's trial balance, its journal, the
ledger extract of the treasury accounts (571 Caisse, 521 Banque, the Wave account), the month's cancellations and
refunds with who did them and who approved; then signature blocks for the treasurer and the president. The
statements are those of ``EtatsService`` (same figures as the statements' routes), rendered by
``core.tableaux.pdf_dossier``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.audit.repository import entrees_d_objets
from unionflow.clotures.mensuelle.service import (
    BANQUE,
    CAISSE,
    EcartCaisse,
    bornes,
    ecart_de,
    nom_du_mois,
    periode_utc,
)
from unionflow.comptabilite.ecritures.tresorerie import compte_de_type
from unionflow.comptabilite.etats import tableaux as etats_tableaux
from unionflow.comptabilite.etats.service import EtatsService
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.core.auth import AuthContext
from unionflow.core.montants import format_montant
from unionflow.core.tableaux import Bloc, Colonne, Nature, Tableau, pdf_dossier
from unionflow.models import ClotureMensuelle
from unionflow.models.approbation import GenreDemande, StatutDemande
from unionflow.models.paiement import StatutPaiement
from unionflow.paiements.recus.service import annulation_approuvee
from unionflow.paiements.repository import PaiementSystemRepository

M = Nature.MONTANT


def _section(titre: str, colonnes: list[Colonne], lignes: Sequence[Sequence[Any]], organisation: str,
             notes: list[str] | None = None) -> Tableau:
    return Tableau(titre=titre, organisation=organisation, sous_titre="", colonnes=colonnes,
                   blocs=[Bloc(None, lignes)], notes=notes or [])


# Where the cash difference stands, in the checklist's "Résultat" column.
RESULTAT_ECART = {"EN_ATTENTE": "Écart en attente d'approbation", "APPROUVEE": "Écart comptabilisé",
                  "REJETEE": "Écart rejeté", "RETIREE": "Écart retiré"}


def _resultat_ecart(c: ClotureMensuelle, ecart: EcartCaisse) -> str:
    if not c.ecart_caisse:
        return "Conforme"
    return RESULTAT_ECART.get(ecart.statut or "APPROUVEE", "Écart comptabilisé")


def _controles(c: ClotureMensuelle, ecart: EcartCaisse, organisation: str, wave: str) -> Tableau:
    f = format_montant
    lignes = [
        ("Caisse comptée contre le compte 571", _resultat_ecart(c, ecart),
         f"comptée {f(c.caisse_comptee)}, comptabilité {f(c.caisse_comptable)}, écart {f(c.ecart_caisse)}"),
        ("Relevé bancaire contre le compte 521", "Conforme",
         f"relevé {f(c.banque_releve)}, comptabilité {f(c.banque_comptable)}"),
        (f"Solde Wave contre le compte {wave}", "Conforme",
         f"Wave {f(c.wave_releve)}, comptabilité {f(c.wave_comptable)}"),
        (f"Aucun paiement en attente depuis plus de {c.delai_declarations_jours} jours", "Conforme", "aucun"),
        ("Aucune alerte LCB-FT ouverte", "Conforme", "aucune"),
        ("Aucun écart de caisse d'une clôture précédente en attente", "Conforme", "aucun"),
        ("Toutes les écritures du mois équilibrées", "Conforme", "débit = crédit pour chaque écriture"),
    ]
    return _section("1. Contrôles vérifiés à la clôture", [Colonne("Contrôle", largeur=3), Colonne("Résultat"),
                                                           Colonne("Détail", largeur=4)], lignes, organisation,
                    [f"Clôturé par {c.cloturee_par} le {c.date_cloture:%d/%m/%Y à %H:%M} UTC; comptes verrouillés "
                     f"jusqu'au {c.date_fin:%d/%m/%Y}."])


def _caisse(c: ClotureMensuelle, ecart: EcartCaisse, organisation: str) -> Tableau:
    lignes: list[Sequence[Any]] = [("Espèces comptées", c.caisse_comptee), ("Solde du compte 571 Caisse",
                                                                            c.caisse_comptable),
                                   ("Écart (compté − comptable)", c.ecart_caisse)]
    notes = []
    if c.ecart_caisse and ecart.demande_id is None:  # closed before the four-eyes rule: booked by the closing
        notes.append(f"Écart passé au compte {c.compte_ecart} le {c.date_fin:%d/%m/%Y} (journal CAI, pièce "
                     f"CAISSE-{c.annee}-{c.mois:02d}). Motif : {c.motif_ecart}")
    elif c.ecart_caisse:
        notes.append(_note_ecart(c, ecart))
    return _section("2. Comptage de caisse", [Colonne("Poste", largeur=3), Colonne("Montant", M, 1.5)], lignes,
                    organisation, notes)


def _note_ecart(c: ClotureMensuelle, ecart: EcartCaisse) -> str:
    """The difference is a four-eyes entry request: booked on approval, after the closed month."""
    quoi = f"Écart au compte {c.compte_ecart} (journal CAI, pièce CAISSE-{c.annee}-{c.mois:02d}), motif : " \
           f"{c.motif_ecart}. "
    if ecart.statut == "APPROUVEE":
        return quoi + f"Approuvé par une seconde personne : écriture n° {ecart.numero_piece}, passée après le mois " \
                      "clôturé (les chiffres du mois verrouillé ne changent pas)."
    if ecart.statut in ("REJETEE", "RETIREE"):
        return quoi + "Demande d'écriture rejetée ou retirée : rien n'a été comptabilisé; l'écart réapparaîtra au " \
                      "comptage du mois suivant."
    return quoi + "Demande d'écriture en attente d'approbation par une seconde personne; elle sera passée après " \
                  "le mois clôturé."


async def _annulations(session: AsyncSession, c: ClotureMensuelle, organisation: str) -> Tableau:
    debut, fin = periode_utc(c)
    paiements = await PaiementSystemRepository(session).annules_ou_rembourses(c.organisation_id, debut, fin)
    entrees = await entrees_d_objets(session, c.organisation_id, "Paiement", [str(p.id) for p in paiements])
    par: dict[str, str] = {}
    approuve: dict[str, str] = {}
    for e in entrees:
        if e.entite_id and e.type_action in ("PAIEMENT_ANNULE", "PAIEMENT_REMBOURSE"):
            par[e.entite_id] = e.utilisateur or ""
        elif e.entite_id and e.type_action.startswith("APPROUVER"):
            approuve[e.entite_id] = e.utilisateur or ""
    # undone on a request approved by a second person; the request says who asked, who approved, why.
    lignes = []
    for p in paiements:
        d = await annulation_approuvee(session, p.id)
        lignes.append((p.numero_recu, p.updated_at, p.montant,
                       "Annulé" if p.statut == StatutPaiement.ANNULE else "Remboursé",
                       d.demande_par if d else par.get(str(p.id), "—"),
                       (d.decide_par or "—") if d else approuve.get(str(p.id), "—"),
                       d.motif if d else (p.commentaire or "").splitlines()[-1] if p.commentaire else ""))
    return Tableau(
        titre="6. Annulations et remboursements du mois", organisation=organisation, sous_titre="",
        colonnes=[Colonne("Reçu", largeur=1.6), Colonne("Date", Nature.DATE, 1.1), Colonne("Montant", M, 1.3),
                  Colonne("Nature"), Colonne("Par", largeur=1.8), Colonne("Approuvé par", largeur=1.8),
                  Colonne("Motif", largeur=2.6)],
        blocs=[Bloc(None, lignes)], paysage=True,
        notes=[] if lignes else ["Aucune annulation ni aucun remboursement ce mois."])


async def _saisies(session: AsyncSession, auth: AuthContext, c: ClotureMensuelle, organisation: str) -> Tableau:
    """Entries typed by hand that moved money this month, and opening balances: each passed only on a second
    person's approval; the auditor sees who typed it and who approved it."""
    debut, fin = bornes(c.annee, c.mois)
    demandes = DemandeApprobationRepository(session, auth)
    lignes = []
    for genre, cle, nature in ((GenreDemande.ECRITURE, "date_ecriture", "Écriture"),
                               (GenreDemande.A_NOUVEAUX, "date_debut", "À-nouveaux")):
        for d in await demandes.de_l_organisation(genre.value, c.organisation_id, StatutDemande.APPROUVEE.value):
            details = d.details or {}
            jour = date.fromisoformat(details[cle])
            if debut <= jour <= fin:
                decision = d.decisions[-1] if d.decisions else None
                lignes.append((details.get("numero_piece", "—"), jour, d.montant, nature,
                               details.get("libelle") or d.motif, d.demande_par,
                               decision.decideur if decision else "—"))
    lignes.sort(key=lambda row: (row[1], row[0]))
    return Tableau(
        titre="7. Écritures saisies à la main approuvées par une seconde personne", organisation=organisation,
        sous_titre="", colonnes=[Colonne("Pièce", largeur=1.6), Colonne("Date", Nature.DATE, 1.1),
                                 Colonne("Montant", M, 1.3), Colonne("Nature"), Colonne("Libellé", largeur=2.6),
                                 Colonne("Saisie par", largeur=1.8), Colonne("Approuvée par", largeur=1.8)],
        blocs=[Bloc(None, lignes)], paysage=True,
        notes=[] if lignes else ["Aucune écriture manuelle touchant la trésorerie ni aucun à-nouveau ce mois."])


async def dossier(session: AsyncSession, auth: AuthContext, c: ClotureMensuelle) -> bytes:
    etats = EtatsService(session, auth)
    debut, fin = bornes(c.annee, c.mois)
    balance = await etats.balance(c.organisation_id, debut, fin)
    organisation = balance.organisation
    ecart = await ecart_de(session, c)
    wave = await compte_de_type(session, c.organisation_id, "WAVE")
    tableaux = [_controles(c, ecart, organisation, wave), _caisse(c, ecart, organisation)]
    t = etats_tableaux.balance(balance)
    t.titre = "3. Balance du mois"
    tableaux.append(t)
    t = etats_tableaux.journal(await etats.journal(c.organisation_id, debut, fin, None))
    t.titre = "4. Journal du mois"
    tableaux.append(t)
    compta = ComptabiliteRepository(session, auth)
    blocs: list[Bloc] = []
    extrait: Tableau | None = None
    for numero in (CAISSE, BANQUE, wave):
        compte = await compta.get_compte_by_numero(c.organisation_id, numero)
        if compte is None:
            continue
        extrait = etats_tableaux.grand_livre(await etats.grand_livre(c.organisation_id, debut, fin, compte.id))
        blocs += extrait.blocs
    if extrait is not None:
        extrait.titre, extrait.blocs = f"5. Extrait du grand livre: trésorerie ({CAISSE}, {BANQUE}, {wave})", blocs
        tableaux.append(extrait)
    tableaux.append(await _annulations(session, c, organisation))
    tableaux.append(await _saisies(session, auth, c, organisation))
    return pdf_dossier(
        f"Dossier de clôture — {nom_du_mois(c.annee, c.mois)}", organisation,
        f"Période du {debut:%d/%m/%Y} au {fin:%d/%m/%Y}", tableaux, ["Le Trésorier", "Le Président"],
        edite_par=auth.actor_name)
