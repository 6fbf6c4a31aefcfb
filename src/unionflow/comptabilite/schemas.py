from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel, UpdateModel
from unionflow.models.comptabilite import TypeCompte, TypeJournalComptable

# SYSCOHADA révisé: the first digit of an account number is its class.
TYPE_PAR_CLASSE = {classe: type_compte for classe, type_compte in enumerate(TypeCompte, start=1)}


class TypeJournal(StrEnum):
    CAISSE = "CAISSE"
    BANQUE = "BANQUE"
    MOBILE_MONEY = "MOBILE_MONEY"
    VENTES = "VENTES"
    ACHATS = "ACHATS"
    OPERATIONS_DIVERSES = "OPERATIONS_DIVERSES"


MONTANT_LIGNE = Field(default=None, ge=0, max_digits=18, decimal_places=2, description="Absent ou null vaut 0")


class CreateCompteComptableRequest(InputModel):
    organisation_id: uuid.UUID
    numero_compte: str = Field(pattern=r"^[1-9][0-9]{0,11}$",
                               description="Numéro SYSCOHADA: chiffres, le premier (1 à 9) donne la classe")
    libelle: str = Field(min_length=2, max_length=200)
    actif: bool = True
    sous_controle: bool = Field(default=False, description=(
        "Extension: écritures manuelles sous quatre yeux. Une écriture manuelle qui touche ce compte est une demande "
        "qu'une seconde personne approuve (comme pour les comptes de trésorerie, classe 5, et les avances des "
        "membres, 4191, toujours sous contrôle). Lever la marque revient au président ou à l'administrateur de "
        "l'organisation (403 sinon)."))


class UpdateCompteComptableRequest(UpdateModel):
    """The number (hence class and type) never changes: entries already point at it."""

    libelle: str | None = Field(default=None, min_length=2, max_length=200)
    actif: bool | None = None
    sous_controle: bool | None = Field(default=None, description=(
        "Extension: voir `CreateCompteComptableRequest.sousControle`; lever la marque (false) revient au président "
        "ou à l'administrateur de l'organisation."))


class CreateJournalComptableRequest(InputModel):
    organisation_id: uuid.UUID
    code: str = Field(pattern=r"^[A-Z][A-Z0-9]{1,9}$", description="Code court unique, ex. CAI, BQ, VT, OD")
    libelle: str = Field(min_length=2, max_length=200)
    type: TypeJournal


class LigneEcritureRequest(InputModel):
    compte_id: uuid.UUID
    debit: Montant | None = MONTANT_LIGNE
    credit: Montant | None = MONTANT_LIGNE
    libelle: str | None = Field(default=None, max_length=300)


class CreateEcritureComptableRequest(InputModel):
    journal_id: uuid.UUID
    date_ecriture: date
    libelle: str = Field(min_length=2, max_length=300)
    piece_reference: str | None = Field(default=None, max_length=100)
    lignes: list[LigneEcritureRequest] = Field(min_length=2, max_length=500)


class CompteComptableResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    numero_compte: str
    libelle: str
    classe: int
    type: TypeCompte = Field(validation_alias="type_compte")
    actif: bool
    sous_controle: bool = Field(description="Extension: écritures manuelles sous quatre yeux (marque de "
                                            "l'organisation; les classes 5 et le 4191 le sont toujours)")
    created_at: datetime


class JournalComptableResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    code: str
    libelle: str
    type: TypeJournalComptable = Field(validation_alias="type_journal")
    actif: bool
    created_at: datetime


class LigneEcritureResponse(OutputModel):
    id: uuid.UUID
    compte_id: uuid.UUID
    numero_compte: str
    libelle_compte: str
    debit: Montant
    credit: Montant
    libelle: str | None


class EcritureComptableResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    journal_id: uuid.UUID
    code_journal: str
    numero_piece: str
    date_ecriture: date
    libelle: str
    piece_reference: str | None
    paiement_id: uuid.UUID | None
    total_debit: Montant
    total_credit: Montant
    devise: str = "XOF"
    cree_par: str | None
    created_at: datetime
    lignes: list[LigneEcritureResponse]
