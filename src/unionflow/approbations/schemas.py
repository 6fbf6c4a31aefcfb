from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import Montant, OutputModel
from unionflow.models.annulation import TypeAnnulation
from unionflow.models.approbation import GenreDemande
from unionflow.models.finance import TypeObjetApprobation


class AApprouverResponse(OutputModel):
    """One pending request the caller may decide, whatever its kind."""

    id: uuid.UUID
    genre: GenreDemande = Field(description="FINANCE (approbation financière), REOUVERTURE (réouverture d'une période "
                                   "verrouillée) ou ANNULATION (annulation, remboursement, contrepassation)")
    nature: TypeObjetApprobation | TypeAnnulation | None = Field(
        description="Précision du genre: type d'objet d'une approbation, type d'annulation")
    numero: str | None
    organisation_id: uuid.UUID
    objet_id: uuid.UUID | None
    montant: Montant | None
    devise: str | None
    motif: str
    niveaux_requis: int
    niveau_atteint: int
    demande_par: str
    date_demande: datetime
    chemin: str = Field(description="La demande dans les routes de son genre (consulter, approuver, rejeter)")
