"""The member's data (right of access) and his erasure requests, on the wire."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.approbation import StatutDemande


class SectionDonnees(OutputModel):
    cle: str
    titre: str
    table: str
    # The rows as stored, one object per row: column names as in the database (snake_case), secrets masked.
    lignes: list[dict[str, Any]]


class DonneesMembreResponse(OutputModel):
    membre_id: uuid.UUID
    genere_le: datetime
    fondement: str
    sections: list[SectionDonnees]


class CreateEffacementRequest(InputModel):
    motif: str = Field(min_length=3, max_length=1000)


class DecisionEffacementRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejetEffacementRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000)


class EffacementResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID | None
    organisation_id: uuid.UUID
    statut: StatutDemande
    motif: str
    demande_par: str
    date_demande: datetime
    decide_par: str | None = None
    commentaire: str | None = None
    date_decision: datetime | None = None
    # What the member is told: what erasure does and keeps, or why it was refused.
    reponse: str


# Opposition (Loi 2008-12): the code of an opposable processing of the register.
CODE_TRAITEMENT = r"^[A-Z][A-Z_]{0,39}$"


class CreateOppositionRequest(InputModel):
    traitement: str = Field(pattern=CODE_TRAITEMENT, description=(
        "Code du traitement au registre des traitements (`GET /api/conformite/traitements`), parmi ceux marqués "
        "`opposable`"))
    motif: str = Field(min_length=3, max_length=1000, description=(
        "Les raisons légitimes de l'opposition; à la prospection, le membre s'oppose sans avoir à se "
        "justifier: « prospection » suffit"))


class ApprouverOppositionRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejeterOppositionRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000, description="La réponse donnée au membre")


class RetirerOppositionRequest(InputModel):
    motif: str | None = Field(default=None, max_length=1000)


class OppositionResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID | None
    organisation_id: uuid.UUID
    traitement: str
    traitement_nom: str
    statut: StatutDemande
    # True from the approval until the member withdraws it: the processing no longer applies to him.
    en_vigueur: bool
    motif: str
    demande_par: str
    date_demande: datetime
    decide_par: str | None = None
    commentaire: str | None = None
    date_decision: datetime | None = None
    effective_le: datetime | None = None
    retiree_le: datetime | None = None
    retiree_par: str | None = None
    # What the member is told: what his opposition changes, why it was refused, or that it was withdrawn.
    reponse: str
