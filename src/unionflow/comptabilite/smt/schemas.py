"""Cash-basis statements (SYCEBNL système minimal de trésorerie) and the SMT eligibility test: JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date

from pydantic import Field

from unionflow.comptabilite.etats.schemas import ArreteEtat, EnteteEtat
from unionflow.comptabilite.smt.categories import Categorie
from unionflow.core.schemas import Montant, OutputModel
from unionflow.models.configuration import Referentiel
from unionflow.models.tresorerie import TypeTresorerie


class EnteteSmt(EnteteEtat):
    exercice: int
    arrete: ArreteEtat = Field(description="Date d'arrêté des états de l'exercice (AUDCIF art. 23) ou « projet — "
                                           "non arrêté » tant que l'exercice n'est pas clôturé")


class RessourceCategorie(OutputModel):
    categorie: Categorie
    libelle: str
    montant: Montant = Field(description="Produits de classe 7 de l'exercice (crédits − débits, hors clôture)")
    seuil: Montant | None = Field(None, description="Seuil propre à la catégorie (configuration); absent: aucun")
    depasse: bool


class EligibiliteSmtResponse(EnteteSmt):
    ressources: list[RessourceCategorie]
    total_ressources: Montant
    seuil_ressources: Montant = Field(description="Configuration `comptabilite.smt.seuil_ressources`")
    eligible: bool = Field(description="Total des ressources ≤ seuil, et chaque catégorie ≤ son seuil s'il en a un")
    seuils_verifies: bool = Field(description="false: les seuils n'ont pas été lus dans le texte de l'Acte "
                                              "uniforme SYCEBNL (docs/conformite.md S6); ce sont des paramètres")
    referentiel: Referentiel = Field(description="Référentiel en vigueur pour l'exercice")
    alertes: list[str]


class PosteCaisse(OutputModel):
    numero_compte: str
    libelle: str
    montant: Montant


class RubriqueCaisse(OutputModel):
    categorie: Categorie
    libelle: str
    postes: list[PosteCaisse]
    total: Montant


class RecettesDepensesResponse(EnteteSmt):
    recettes: list[RubriqueCaisse]
    depenses: list[RubriqueCaisse]
    total_recettes: Montant
    total_depenses: Montant
    solde: Montant = Field(description="Recettes − dépenses = variation de la trésorerie (classe 5) de la période")
    tresorerie_ouverture: Montant
    tresorerie_cloture: Montant


class SituationTresorerie(OutputModel):
    tresorerie_id: uuid.UUID | None = Field(None, description="Absent: compte de classe 5 sans trésorerie déclarée")
    nom: str
    type_tresorerie: TypeTresorerie | None
    numero_compte: str
    ouverture: Montant = Field(description="Solde au début de l'exercice, à-nouveaux compris")
    entrees: Montant
    sorties: Montant
    cloture: Montant = Field(description="Ouverture + entrées − sorties")
    solde_comptable: Montant = Field(description="Solde du compte de classe 5 à la date de fin (balance)")
    concorde: bool = Field(description="cloture = solde_comptable")


class SituationTresorerieResponse(EnteteSmt):
    tresoreries: list[SituationTresorerie]
    total_ouverture: Montant
    total_entrees: Montant
    total_sorties: Montant
    total_cloture: Montant
    concorde: bool


class MouvementJournalTresorerie(OutputModel):
    date_ecriture: date
    numero_piece: str
    code_journal: str
    libelle: str
    contrepartie: str = Field(description="Comptes de contrepartie de l'écriture (numéros)")
    entree: Montant
    sortie: Montant
    solde: Montant = Field(description="Solde cumulé après le mouvement")


class JournalTresorerie(OutputModel):
    tresorerie_id: uuid.UUID | None
    nom: str
    type_tresorerie: TypeTresorerie | None
    numero_compte: str
    solde_ouverture: Montant
    mouvements: list[MouvementJournalTresorerie]
    total_entrees: Montant
    total_sorties: Montant
    solde_cloture: Montant


class JournauxTresorerieResponse(EnteteSmt):
    journaux: list[JournalTresorerie]
