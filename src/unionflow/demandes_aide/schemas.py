from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel, UpdateModel
from unionflow.models.demande_aide import StatutDemandeAide, UrgenceDemandeAide
from unionflow.types_reference.schemas import CODE, code_du_domaine

TYPE_AIDE_DOMAINE = "TYPE_AIDE"
# Aid types are reference data (Types de référence, domain TYPE_AIDE), checked by the service like event types.
TypeAide = Annotated[str, Field(pattern=CODE, max_length=50,
                                description=code_du_domaine("TYPE_AIDE")
                                + ", actif (ex. DECES, MALADIE, MARIAGE, NAISSANCE, SCOLARITE, SINISTRE, AUTRE)")]


MontantDemande = Field(ge=0, max_digits=18, decimal_places=2)


class CreateDemandeAideRequest(InputModel):
    organisation_id: uuid.UUID
    type: TypeAide
    titre: str = Field(min_length=3, max_length=200)
    description: str = Field(min_length=3, max_length=5000)
    montant_demande: Montant = MontantDemande
    urgence: UrgenceDemandeAide = UrgenceDemandeAide.NORMALE


class UpdateDemandeAideRequest(UpdateModel):
    type: TypeAide | None = None
    titre: str | None = Field(default=None, min_length=3, max_length=200)
    description: str | None = Field(default=None, min_length=3, max_length=5000)
    montant_demande: Montant | None = Field(default=None, ge=0, max_digits=18, decimal_places=2)
    urgence: UrgenceDemandeAide | None = None


class DemandeAideResponse(OutputModel):
    id: uuid.UUID
    numero_reference: str
    organisation_id: uuid.UUID
    membre_id: uuid.UUID
    type: str = Field(validation_alias="type_aide",
                      description=code_du_domaine("TYPE_AIDE"))
    titre: str
    description: str
    montant_demande: Montant
    montant_accorde: Montant | None
    devise: str
    urgence: UrgenceDemandeAide
    statut: StatutDemandeAide
    date_soumission: datetime
    date_decision: datetime | None
    decide_par: str | None
    motif: str | None
    created_at: datetime
    updated_at: datetime
