"""Accounting statements (SYCEBNL presentation of the SYSCOHADA chart): JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from pydantic import Field

from unionflow.comptabilite.schemas import EcritureComptableResponse
from unionflow.core.schemas import InputModel, OutputModel


class FormatEtat(StrEnum):
    JSON = "json"
    PDF = "pdf"
    XLSX = "xlsx"


class EnteteEtat(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    date_debut: date | None
    date_fin: date
    devise: str
    calcule_le: datetime


class LigneBalance(OutputModel):
    compte_id: uuid.UUID
    numero_compte: str
    libelle: str
    classe: int
    debit_ouverture: Decimal
    credit_ouverture: Decimal
    debit_periode: Decimal
    credit_periode: Decimal
    solde_debiteur: Decimal
    solde_crediteur: Decimal


class TotauxBalance(OutputModel):
    debit_ouverture: Decimal
    credit_ouverture: Decimal
    debit_periode: Decimal
    credit_periode: Decimal
    solde_debiteur: Decimal
    solde_crediteur: Decimal


class BalanceGeneraleResponse(EnteteEtat):
    lignes: list[LigneBalance]
    totaux: TotauxBalance
    equilibree: bool = Field(description="Σ débits = Σ crédits pour l'ouverture, la période et les soldes")


class MouvementGrandLivre(OutputModel):
    date_ecriture: date
    numero_piece: str
    code_journal: str
    libelle: str
    debit: Decimal
    credit: Decimal
    solde: Decimal = Field(description="Solde cumulé après la ligne (débiteur positif, créditeur négatif)")


class CompteGrandLivre(OutputModel):
    compte_id: uuid.UUID
    numero_compte: str
    libelle: str
    solde_ouverture: Decimal
    mouvements: list[MouvementGrandLivre]
    total_debit: Decimal
    total_credit: Decimal
    solde_cloture: Decimal


class GrandLivreResponse(EnteteEtat):
    comptes: list[CompteGrandLivre]


class JournalEtatResponse(EnteteEtat):
    ecritures: list[EcritureComptableResponse]
    total_debit: Decimal
    total_credit: Decimal


class PosteEtat(OutputModel):
    numero_compte: str
    libelle: str
    montant: Decimal


class RubriqueEtat(OutputModel):
    rubrique: str
    postes: list[PosteEtat]
    total: Decimal


class BilanResponse(EnteteEtat):
    actif: list[RubriqueEtat]
    passif: list[RubriqueEtat]
    total_actif: Decimal
    total_passif: Decimal
    equilibre: bool


class CompteResultatResponse(EnteteEtat):
    charges: list[RubriqueEtat]
    produits: list[RubriqueEtat]
    total_charges: Decimal
    total_produits: Decimal
    resultat: Decimal = Field(description="Produits − charges: excédent (> 0) ou déficit (< 0)")


class VerrouillageRequest(InputModel):
    organisation_id: uuid.UUID
    date_verrouillage: date = Field(description="Aucune écriture datée de ce jour ou avant ne peut être passée")


class VerrouillageResponse(OutputModel):
    organisation_id: uuid.UUID
    date_verrouillage: date | None
    modifie_par: str | None


class ClotureRequest(InputModel):
    organisation_id: uuid.UUID


class ExerciceResponse(OutputModel):
    organisation_id: uuid.UUID
    annee: int
    statut: str = Field(description="OUVERT ou CLOTURE")
    resultat: Decimal | None
    ecriture_cloture_id: uuid.UUID | None
    cloture_par: str | None
    date_cloture: datetime | None
