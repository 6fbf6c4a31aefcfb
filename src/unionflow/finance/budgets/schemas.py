from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.regles import UnSeul
from unionflow.core.schemas import InputModel, Montant, OutputModel, Taux, UpdateModel
from unionflow.models.finance import NatureLigneBudget, StatutBudget


class LigneBudgetRequest(InputModel):
    regles = (UnSeul(("compte_id", "prefixe_compte"), "une ligne porte soit compteId, soit prefixeCompte (un seul "
                                                      "des deux)"),)

    libelle: str = Field(min_length=2, max_length=200)
    compte_id: uuid.UUID | None = Field(default=None, description="Compte comptable de l'organisation")
    prefixe_compte: str | None = Field(default=None, pattern=r"^[1-9][0-9]{0,11}$",
                                       description="Catégorie: tous les comptes dont le numéro commence ainsi "
                                                   "(ex. 66 = charges de personnel)")
    nature: NatureLigneBudget | None = Field(default=None,
                                             description="Par défaut RECETTE pour la classe 7, sinon DEPENSE")
    montant_prevu: Montant = Field(ge=0, max_digits=18, decimal_places=2)


class CreateBudgetRequest(InputModel):
    organisation_id: uuid.UUID
    annee: int = Field(ge=2000, le=2100)
    libelle: str = Field(min_length=3, max_length=200)
    description: str | None = Field(default=None, max_length=5000)
    date_debut: date | None = Field(default=None, description="Par défaut le 1er janvier de l'année")
    date_fin: date | None = Field(default=None, description="Par défaut le 31 décembre de l'année")
    lignes: list[LigneBudgetRequest] = Field(default_factory=list, max_length=500)


class UpdateBudgetRequest(UpdateModel):
    nullable_fields = frozenset({"description"})
    libelle: str | None = Field(default=None, min_length=3, max_length=200)
    description: str | None = Field(default=None, max_length=5000)
    date_debut: date | None = None
    date_fin: date | None = None
    lignes: list[LigneBudgetRequest] | None = Field(default=None, max_length=500,
                                                    description="Remplace toutes les lignes")


class DecisionBudgetRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejetBudgetRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000)


class LigneBudgetResponse(OutputModel):
    id: uuid.UUID
    ordre: int
    libelle: str
    compte_id: uuid.UUID | None
    numero_compte: str | None
    prefixe_compte: str | None
    nature: NatureLigneBudget
    montant_prevu: Montant


class BudgetResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    annee: int
    libelle: str
    description: str | None
    date_debut: date
    date_fin: date
    devise: str
    statut: StatutBudget
    cree_par: str
    soumis_par: str | None
    date_soumission: datetime | None
    approuve_par: str | None
    date_approbation: datetime | None
    commentaire: str | None
    date_cloture: datetime | None
    total_depenses_prevues: Montant
    total_recettes_prevues: Montant
    lignes: list[LigneBudgetResponse]
    created_at: datetime
    updated_at: datetime


class LigneExecution(OutputModel):
    ligne_id: uuid.UUID
    libelle: str
    compte_id: uuid.UUID | None
    numero_compte: str | None
    prefixe_compte: str | None
    nature: NatureLigneBudget
    montant_prevu: Montant
    montant_realise: Montant
    ecart: Montant = Field(description="Prévu − réalisé (négatif: dépassement d'une dépense)")
    taux_consommation: Taux | None = Field(description="Réalisé / prévu × 100, deux décimales; null si prévu = 0")
    depassement: bool


class TotauxExecution(OutputModel):
    depenses_prevues: Montant
    depenses_realisees: Montant
    recettes_prevues: Montant
    recettes_realisees: Montant
    solde_prevu: Montant
    solde_realise: Montant


class ExecutionBudgetResponse(OutputModel):
    budget_id: uuid.UUID
    statut: StatutBudget
    date_debut: date
    date_fin: date
    devise: str
    lignes: list[LigneExecution]
    totaux: TotauxExecution
