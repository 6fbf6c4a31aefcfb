from __future__ import annotations

import datetime as dt
import uuid
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.wave import SourceReleveWave, StatutLigneReleveWave


class TypeOperationWave(StrEnum):
    """What an operation of ours absent from Wave's statement is (computed for the response)."""

    PAIEMENT = "PAIEMENT"
    VERSEMENT = "VERSEMENT"


class ImporterReleveWaveRequest(InputModel):
    organisation_id: uuid.UUID
    date: dt.date = Field(description="Jour demandé à Wave (GET /v1/transactions?date=...), toutes ses pages")


class ReleveWaveResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    compte_wave_id: uuid.UUID | None = Field(description="None: compte Wave partagé de l'union")
    source: SourceReleveWave
    nom_fichier: str | None
    date_debut: date | None
    date_fin: date | None
    solde_wave: Montant | None = Field(description="Solde après la dernière ligne, tel que Wave le rapporte")
    nombre_lignes: int = Field(description="Lignes enregistrées par ce relevé")
    lignes_deja_connues: int = Field(description="Lignes déjà importées par un relevé précédent (ignorées)")
    lignes_autres_organisations: int = Field(
        description="Compte partagé: lignes des paiements et versements d'autres organisations (non enregistrées)")
    importe_par: str
    created_at: datetime


class LigneReleveWaveResponse(OutputModel):
    id: uuid.UUID
    transaction_id: str
    est_annulation: bool
    horodatage: datetime
    type_transaction: str | None
    montant: Montant = Field(description="Effet sur le compte Wave, net des frais, signé (montant Wave)")
    frais: Montant
    solde: Montant | None
    devise: str
    contrepartie_nom: str | None
    contrepartie_mobile: str | None
    client_reference: str | None
    session_checkout_id: str | None
    message: str | None = Field(default=None, description=(
        "Extension: message du transfert (colonne « Message »/« Motif » du relevé); un code de paiement de "
        "cotisation qu'il porte fait de la ligne le paiement de cette cotisation au rapprochement"))
    statut: StatutLigneReleveWave
    paiement_id: uuid.UUID | None
    versement_id: uuid.UUID | None
    ecriture_frais_id: uuid.UUID | None


class OperationAbsenteResponse(OutputModel):
    type_operation: TypeOperationWave = Field(description="PAIEMENT (encaissement Wave) ou VERSEMENT")
    paiement_id: uuid.UUID | None
    versement_id: uuid.UUID | None
    reference_wave: str | None
    montant: Montant | None
    date_operation: datetime


class RapprochementWaveResponse(OutputModel):
    id: uuid.UUID
    releve_id: uuid.UUID
    organisation_id: uuid.UUID
    lignes_rapprochees: int
    lignes_inconnues: int = Field(description="Lignes Wave sans paiement ni versement chez nous")
    lignes_montant_different: int
    operations_absentes: int = Field(description="Nos paiements et versements Wave de la période absents du relevé")
    frais_comptabilises: Montant = Field(description="Frais Wave comptabilisés par ce rapprochement (6317)")
    solde_comptable: Montant = Field(description=(
        "Solde du compte Wave de l'organisation (sa trésorerie Wave, sinon 5521, ou 5215 s'il est ouvert) à la fin "
        "du relevé"))
    solde_wave: Montant | None
    ecart: Montant | None = Field(description="Solde comptable − solde Wave; None sur le compte partagé")
    compte_partage: bool = Field(description="Compte Wave partagé de l'union: son solde est celui de toutes les "
                                             "organisations, il n'est pas comparable au solde comptable de l'une")
    absentes: list[OperationAbsenteResponse]
    rapproche_par: str
    created_at: datetime


class ReleveWaveDetailResponse(ReleveWaveResponse):
    lignes_par_statut: dict[str, int]
    dernier_rapprochement: RapprochementWaveResponse | None


def absentes(rows: list[dict[str, Any]]) -> list[OperationAbsenteResponse]:
    return [OperationAbsenteResponse.model_validate(r) for r in rows]


class ComptabiliserLigneWaveRequest(InputModel):
    compte_id: uuid.UUID = Field(description="Contrepartie: compte de l'organisation, hors classe 5 (ex. 7581 dons, "
                                             "4711 débiteurs divers)")
    libelle: str = Field(min_length=3, max_length=300, description="Ce qu'est cette opération Wave")
