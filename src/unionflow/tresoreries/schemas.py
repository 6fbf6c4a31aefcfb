from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel, UpdateModel
from unionflow.models.approbation import StatutDemande
from unionflow.models.tresorerie import TypeTresorerie

COMPTE_PATTERN = r"^5[0-9]{1,7}$"


class CreateTresorerieRequest(InputModel):
    organisation_id: uuid.UUID
    type: TypeTresorerie
    nom: str = Field(min_length=2, max_length=200)
    numero_compte: str = Field(pattern=COMPTE_PATTERN, description=(
        "Compte de classe 5 (571x caisse, 521x banque, 552x Wave, Orange Money ou Free Money, ou 5215x–5217x…), créé "
        "dans le plan comptable s'il manque; un seul par trésorerie"))
    decouvert_autorise: Montant | None = Field(default=None, ge=0, max_digits=18, decimal_places=2,
                                               description="Banque seulement: découvert autorisé (0 par défaut)")
    par_defaut: bool = False


class UpdateTresorerieRequest(UpdateModel):
    nom: str | None = Field(default=None, min_length=2, max_length=200)
    decouvert_autorise: Montant | None = Field(default=None, ge=0, max_digits=18, decimal_places=2)
    actif: bool | None = None
    par_defaut: bool | None = None


class TresorerieResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    type: TypeTresorerie
    nom: str
    numero_compte: str
    decouvert_autorise: Montant | None
    actif: bool
    par_defaut: bool
    solde: Montant = Field(description="Solde du compte de classe 5 dans les livres (débit - crédit)")
    cree_par: str
    created_at: datetime
    updated_at: datetime


class CreateVirementInterneRequest(InputModel):
    organisation_id: uuid.UUID
    source_id: uuid.UUID = Field(description="Trésorerie d'où l'argent sort")
    destination_id: uuid.UUID = Field(description="Trésorerie où l'argent entre")
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2)
    date_operation: date | None = Field(default=None, description="Date des écritures (aujourd'hui par défaut)")
    libelle: str = Field(min_length=3, max_length=200, description="Ex. « Dépôt de la caisse à la banque »")


class VirementInterneResponse(OutputModel):
    numero: str
    organisation_id: uuid.UUID
    source_id: uuid.UUID
    destination_id: uuid.UUID
    montant: Montant
    date_operation: date
    libelle: str
    ecriture_sortie_id: uuid.UUID
    ecriture_entree_id: uuid.UUID
    solde_source: Montant
    solde_destination: Montant
    effectue_par: str


class SoldeTresorerieInput(InputModel):
    tresorerie_id: uuid.UUID
    montant: Montant = Field(max_digits=18, decimal_places=2,
                             description="Solde d'ouverture (négatif: découvert d'une banque, dans sa limite)")


class SoldeCompteInput(InputModel):
    numero_compte: str = Field(pattern=r"^[1-5][0-9]{1,7}$", description="Compte de bilan (classes 1 à 5) existant")
    montant: Montant = Field(max_digits=18, decimal_places=2, description="Solde débiteur > 0, créditeur < 0")


class CreateANouveauxRequest(InputModel):
    organisation_id: uuid.UUID
    date_debut: date = Field(description="Date de démarrage dans UnionFlow: date de l'écriture d'à-nouveaux")
    tresoreries: list[SoldeTresorerieInput] = Field(default_factory=list, max_length=50)
    comptes: list[SoldeCompteInput] = Field(default_factory=list, max_length=200)
    motif: str | None = Field(default=None, min_length=3, max_length=500,
                              description="Obligatoire si l'exercice a déjà d'autres écritures")


class SoldeANouveauxResponse(OutputModel):
    numero_compte: str
    libelle: str
    montant: Montant = Field(description="Solde d'ouverture: débiteur > 0, créditeur < 0")


class ApprouverANouveauxRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejeterANouveauxRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000, description="Raison du rejet (obligatoire)")


class DemandeANouveauxResponse(OutputModel):
    """Opening balances waiting for a second person. While EN_ATTENTE nothing is booked; APPROUVEE means the
    entry was posted in journal AN (``ecritureId``, ``numeroPiece``)."""

    id: uuid.UUID
    organisation_id: uuid.UUID
    date_debut: date
    motif: str | None
    soldes: list[SoldeANouveauxResponse]
    montant_total: Montant = Field(description="Total au débit de l'écriture d'à-nouveaux")
    statut: StatutDemande
    demande_par: str
    date_demande: datetime
    decide_par: str | None
    role_decideur: str | None
    commentaire: str | None
    date_decision: datetime | None
    ecriture_id: uuid.UUID | None
    numero_piece: str | None
