"""A member's credit (avoir) with an organisation: reading it and applying it."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.paiement import TypeMouvementAvoir


class ImputerAvoirRequest(InputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID


class MouvementAvoirResponse(OutputModel):
    id: uuid.UUID
    type_mouvement: TypeMouvementAvoir
    montant: Montant = Field(description="Signé: positif quand l'avoir est créé, négatif quand il sert ou est "
                                         "annulé avec son paiement")
    paiement_id: uuid.UUID
    numero_recu: str = Field(description="Le reçu d'origine de l'avoir")
    cotisation_id: uuid.UUID | None
    ecriture_id: uuid.UUID | None
    libelle: str
    cree_par: str
    created_at: datetime


class AvoirResponse(OutputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    solde: Montant = Field(description="Avoir disponible: somme des mouvements, jamais négative")
    mouvements: list[MouvementAvoirResponse]


class ImputationAvoirResponse(OutputModel):
    cotisation_id: uuid.UUID
    numero_reference: str
    montant: Montant
    paiement_id: uuid.UUID
    numero_recu: str = Field(description="Le reçu dont l'avoir paie la cotisation")


class ImputerAvoirResponse(OutputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    montant_impute: Montant
    solde: Montant = Field(description="Avoir restant après imputation")
    imputations: list[ImputationAvoirResponse]


class LigneRegistreAvoirResponse(OutputModel):
    membre_id: uuid.UUID
    nom: str = Field(description="Prénom et nom du membre")
    solde: Montant = Field(description="Son avoir disponible dans l'organisation")


class RegistreAvoirsResponse(OutputModel):
    organisation_id: uuid.UUID
    total: Montant = Field(description="Somme des avoirs des membres (somme des lignes)")
    solde_compte_avoirs: Montant = Field(
        description="Solde créditeur du compte 4191 « Clients, avances et acomptes reçus » dans les livres")
    ecart: Montant = Field(description="`soldeCompteAvoirs` − `total`: zéro quand le registre et les livres "
                                       "concordent")
    lignes: list[LigneRegistreAvoirResponse] = Field(description="Un membre par ligne, par nom")
