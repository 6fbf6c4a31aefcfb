from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import InputModel, Montant, OutputModel, Taux, UpdateModel
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.paiement import MethodePaiement
from unionflow.paiements.schemas import DeclarationPaiementResponse

CURRENCY_PATTERN = r"^[A-Z]{3}$"


class CreateAdhesionRequest(InputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    frais_adhesion: Montant = Field(default=Decimal("0"), ge=0, max_digits=18, decimal_places=2,
                                    description="Droit d'entrée; 0 par défaut (adhésion gratuite)")
    devise: str | None = Field(default=None, pattern=CURRENCY_PATTERN,
                               description="Par défaut la devise de l'organisation (XOF)")
    observations: str | None = Field(default=None, max_length=5000)


class UpdateAdhesionRequest(UpdateModel):
    """Editable while the application is EN_ATTENTE; fee and currency by the organisation's administrators."""

    nullable_fields = frozenset({"observations"})
    frais_adhesion: Montant | None = Field(default=None, ge=0, max_digits=18, decimal_places=2)
    devise: str | None = Field(default=None, pattern=CURRENCY_PATTERN)
    observations: str | None = Field(default=None, max_length=5000)


class RecuResponse(OutputModel):
    paiement_id: uuid.UUID
    numero_recu: str
    montant: Montant
    methode: MethodePaiement
    date_paiement: datetime | None


class AdhesionResponse(OutputModel):
    id: uuid.UUID
    numero_reference: str
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    statut: StatutAdhesion
    date_demande: date
    frais_adhesion: Montant
    montant_paye: Montant
    montant_restant: Montant
    devise: str
    methode_paiement: MethodePaiement | None
    reference_paiement: str | None
    date_paiement: datetime | None
    date_approbation: datetime | None
    approuve_par: str | None
    date_rejet: datetime | None
    motif_rejet: str | None
    date_annulation: datetime | None
    observations: str | None
    created_at: datetime
    updated_at: datetime


class AdhesionPayeeResponse(AdhesionResponse):
    recu: RecuResponse | None = Field(default=None, description="Reçu du paiement encaissé (trésorerie seulement)")
    declaration: DeclarationPaiementResponse | None = Field(
        default=None, description="Paiement d'un membre en attente (session Wave ou déclaration à confirmer)")


class AdhesionStatsResponse(ResultatCalcule):
    total: int
    par_statut: dict[str, int] = Field(description="Nombre d'adhésions par statut (tous les statuts présents)")
    en_attente: int
    approuvees: int
    rejetees: int
    payees: int
    annulees: int
    montant_frais_du: Montant = Field(description="Frais des adhésions approuvées ou payées")
    montant_collecte: Montant
    montant_restant: Montant
    taux_approbation: Taux = Field(description="(approuvées + payées) / décidées × 100, 2 décimales")
