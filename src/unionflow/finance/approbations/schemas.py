from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.regles import Si
from unionflow.core.roles import Role
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.approbation import TypeDecision
from unionflow.models.finance import StatutApprobation, TypeObjetApprobation


class CreateApprobationRequest(InputModel):
    # "typeObjet ANNULATION, then no typeObjet": the schema's way of saying ANNULATION is not opened here.
    regles = (Si("type_objet", TypeObjetApprobation.ANNULATION, "typeObjet: ANNULATION est ouverte par la demande "
                                                                "d'annulation elle-même", exclus=("type_objet",)),
              Si("type_objet", TypeObjetApprobation.AUTRE, "montant: obligatoire", requis=("montant",)),
              *(Si("type_objet", t, f"objetId: obligatoire pour {t.value}", requis=("objet_id",))
                for t in (TypeObjetApprobation.VERSEMENT, TypeObjetApprobation.AIDE)))

    organisation_id: uuid.UUID
    type_objet: TypeObjetApprobation
    objet_id: uuid.UUID | None = Field(default=None, description="Versement ou demande d'aide visé (obligatoire "
                                                                 "pour VERSEMENT et AIDE)")
    montant: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2,
                                    description="Obligatoire pour AIDE et AUTRE; pour VERSEMENT, celui du versement")
    motif: str = Field(min_length=3, max_length=1000)


class ApprouverRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejeterRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000)


class AnnulerRequest(InputModel):
    motif: str = Field(min_length=3, max_length=1000)


class DecisionResponse(OutputModel):
    niveau: int
    decision: TypeDecision
    approbateur: str
    role: Role | None
    commentaire: str | None
    date_decision: datetime


class ApprobationResponse(OutputModel):
    id: uuid.UUID
    numero: str
    organisation_id: uuid.UUID
    type_objet: TypeObjetApprobation
    objet_id: uuid.UUID | None
    montant: Montant
    devise: str
    motif: str
    statut: StatutApprobation
    niveaux_requis: int
    niveau_atteint: int
    demande_par: str
    date_demande: datetime
    date_decision: datetime | None
    motif_annulation: str | None
    decisions: list[DecisionResponse]
    created_at: datetime
    updated_at: datetime
