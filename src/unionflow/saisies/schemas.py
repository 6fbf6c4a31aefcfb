"""JSON shapes of manual entries under four eyes (extension)."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.approbation import StatutDemande


class ApprouverEcritureRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejeterEcritureRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000, description="Raison du rejet (obligatoire)")


class LigneDemandeEcritureResponse(OutputModel):
    compte_id: uuid.UUID
    numero_compte: str
    libelle_compte: str
    debit: Montant
    credit: Montant
    libelle: str | None
    sous_controle: bool = Field(description="Ce compte met l'écriture sous quatre yeux (classe 5, 4191 ou compte "
                                            "marqué par l'organisation)")


class DemandeEcritureResponse(OutputModel):
    """A manual entry waiting for a second person. While EN_ATTENTE nothing is booked; APPROUVEE means it was
    posted (``ecritureId``, ``numeroPiece``)."""

    id: uuid.UUID
    organisation_id: uuid.UUID
    journal_id: uuid.UUID
    code_journal: str
    date_ecriture: date
    libelle: str
    piece_reference: str | None
    montant: Montant = Field(description="Total au débit (= total au crédit)")
    devise: str = "XOF"
    lignes: list[LigneDemandeEcritureResponse]
    statut: StatutDemande
    demande_par: str
    date_demande: datetime
    decide_par: str | None
    role_decideur: str | None
    commentaire: str | None
    date_decision: datetime | None
    ecriture_id: uuid.UUID | None = Field(description="L'écriture passée à l'approbation")
    numero_piece: str | None
