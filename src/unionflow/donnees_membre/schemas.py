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
