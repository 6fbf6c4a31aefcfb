"""JSON shapes of the requests to undo money (extension)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.annulation import StatutDemandeAnnulation, TypeAnnulation


class ContrepasserEcritureRequest(InputModel):
    motif: str = Field(min_length=3, max_length=500, description="Pourquoi l'écriture doit être contrepassée")


class RembourserAvoirRequest(InputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2, description="Au plus l'avoir du membre")
    motif: str = Field(min_length=3, max_length=500)


class ApprouverAnnulationRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejeterAnnulationRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000, description="Raison du rejet (obligatoire)")


class DemandeAnnulationResponse(OutputModel):
    """A request to undo money. While EN_ATTENTE nothing has moved; APPROUVEE means it was carried out."""

    id: uuid.UUID
    organisation_id: uuid.UUID
    type_annulation: TypeAnnulation
    paiement_id: uuid.UUID | None
    versement_id: uuid.UUID | None
    ecriture_id: uuid.UUID | None
    reference: str = Field(description="Numéro du reçu, du versement ou de la pièce visé")
    montant: Montant
    devise: str
    motif: str
    statut: StatutDemandeAnnulation
    demande_par: str
    date_demande: datetime
    approbation_id: uuid.UUID | None = Field(description="Au-delà de `finance.approbation.seuil_annulation`: la "
                                                         "demande d'approbation (finance) à approuver d'abord")
    decide_par: str | None
    commentaire: str | None
    date_decision: datetime | None
    numero_remboursement: str | None = Field(description="Remboursement approuvé: numéro du reçu de remboursement "
                                                         "(série RMB)")
