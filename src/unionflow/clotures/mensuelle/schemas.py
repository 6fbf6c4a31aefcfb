"""Monthly closing: JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.approbation import StatutDemande


class CreateClotureMensuelleRequest(InputModel):
    organisation_id: uuid.UUID
    annee: int = Field(ge=2000, le=2100)
    mois: int = Field(ge=1, le=12)
    caisse_comptee: Montant = Field(ge=0, description="Espèces comptées en caisse au dernier jour du mois (≥ 0)")
    compte_ecart: str | None = Field(default=None, pattern=r"^[1-9][0-9]{1,9}$",
                                     description="Compte où passer l'écart de caisse (ex. 658 manquant, 758 excédent); "
                                                 "obligatoire s'il y a un écart")
    motif_ecart: str | None = Field(default=None, min_length=5, max_length=500,
                                    description="Raison de l'écart de caisse; obligatoire s'il y a un écart")
    solde_banque: Montant = Field(description="Solde du relevé bancaire au dernier jour du mois (compte 521)")
    solde_wave: Montant = Field(description=(
        "Solde Wave au dernier jour du mois (compte Wave de l'organisation: sa trésorerie Wave, sinon 5521, ou 5215 "
        "s'il est déjà ouvert)"))


class ControleResponse(OutputModel):
    code: str
    libelle: str
    ok: bool
    detail: str


class ClotureMensuelleResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    annee: int
    mois: int
    date_fin: date
    caisse_comptee: Montant
    caisse_comptable: Montant
    ecart_caisse: Montant
    compte_ecart: str | None
    motif_ecart: str | None
    ecriture_ecart_id: uuid.UUID | None = Field(
        description="Écriture de l'écart de caisse, une fois la demande approuvée (ou passée par la clôture avant "
                    "la règle des quatre yeux)")
    demande_ecart_id: uuid.UUID | None = Field(
        default=None, description="Extension: demande d'écriture (quatre yeux) ouverte par la clôture pour l'écart "
                                  "de caisse, `/api/comptabilite/demandes-ecritures/{id}`")
    statut_ecart: StatutDemande | None = Field(
        default=None, description="Extension: EN_ATTENTE, APPROUVEE, REJETEE ou RETIREE (la demande de l'écart)")
    numero_piece_ecart: str | None = Field(default=None, description="Extension: numéro de l'écriture de l'écart, "
                                                                     "une fois approuvée")
    banque_releve: Montant
    banque_comptable: Montant
    wave_releve: Montant
    wave_comptable: Montant
    delai_declarations_jours: int
    cloturee_par: str
    date_cloture: datetime
