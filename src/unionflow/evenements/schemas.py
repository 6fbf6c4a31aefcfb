from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from pydantic import AwareDatetime, Field, model_validator

from unionflow.core.cache import ResultatCalcule
from unionflow.core.pagination import Page
from unionflow.core.regles import Si
from unionflow.core.schemas import EtatSante, InputModel, Montant, OutputModel, Taux, regle_metier
from unionflow.models.evenement import StatutEvenement, StatutInscription, StatutModeration, Visibilite
from unionflow.types_reference.schemas import code_du_domaine


class SortField(StrEnum):
    dateDebut = "dateDebut"
    dateFin = "dateFin"
    titre = "titre"
    createdAt = "createdAt"


class Direction(StrEnum):
    asc = "asc"
    desc = "desc"


TYPE_EVENEMENT_DOMAINE = "TYPE_EVENEMENT"


class Evenement(InputModel):
    """Body of create and update (the spec's schema ``Evenement``); status is server-managed."""

    titre: str = Field(min_length=3, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)
    type_evenement: str = Field(min_length=1, max_length=50,
                                description=code_du_domaine("TYPE_EVENEMENT") + " (ex. ASSEMBLEE_GENERALE)")
    date_debut: AwareDatetime
    date_fin: AwareDatetime
    lieu: str | None = Field(default=None, max_length=200)
    adresse: str | None = Field(default=None, max_length=300)
    capacite_max: int | None = Field(default=None, ge=1, le=1_000_000, description="Absent: sans limite")
    liste_attente_active: bool = Field(
        default=False, description="Vrai: une fois l'événement complet, les inscriptions vont en liste d'attente "
                                   "(EN_ATTENTE, promotion dans l'ordre d'arrivée); faux: elles sont refusées (409)")
    prix: Montant | None = Field(default=None, ge=0, max_digits=18, decimal_places=2)
    inscription_requise: bool = False
    date_limite_inscription: AwareDatetime | None = None
    visibilite: Visibilite = Visibilite.MEMBRES
    organisation_id: uuid.UUID | None = Field(
        default=None, description="Organisation organisatrice; par défaut l'organisation active")

    @model_validator(mode="after")
    def _dates(self) -> Evenement:
        if self.date_fin <= self.date_debut:
            raise regle_metier("dateFin doit être postérieure à dateDebut")
        if self.date_limite_inscription is not None and self.date_limite_inscription > self.date_fin:
            raise regle_metier("dateLimiteInscription ne peut pas dépasser dateFin")
        return self


class EvenementMobileDTO(OutputModel):
    id: uuid.UUID
    titre: str
    description: str | None
    type_evenement: str = Field(description=code_du_domaine("TYPE_EVENEMENT"))
    date_debut: datetime
    date_fin: datetime
    lieu: str | None
    adresse: str | None
    capacite_max: int | None
    liste_attente_active: bool
    prix: Montant | None
    devise: str
    inscription_requise: bool
    date_limite_inscription: datetime | None
    visibilite: Visibilite
    organisation_id: uuid.UUID
    organisation_nom: str | None = None
    statut: StatutEvenement = Field(description="Statut effectif: EN_COURS/TERMINE déduits des dates")
    nombre_inscrits: int = Field(description="Inscriptions confirmées")
    nombre_en_attente: int = Field(description="Inscriptions en liste d'attente")
    places_restantes: int | None = Field(description="Absent quand la capacité est illimitée")
    inscriptions_ouvertes: bool
    motif_annulation: str | None = None
    created_at: datetime
    updated_at: datetime


class PagedResponseEvenementMobileDTO(Page[EvenementMobileDTO]):
    """Page of events (spec schema name)."""


class AnnulationEvenement(InputModel):
    motif: str | None = Field(default=None, max_length=500)


class InscriptionResponse(OutputModel):
    id: uuid.UUID
    evenement_id: uuid.UUID
    membre_id: uuid.UUID
    statut: StatutInscription
    date_inscription: datetime
    date_confirmation: datetime | None
    date_annulation: datetime | None
    position_liste_attente: int | None = Field(default=None, description="Rang dans la liste d'attente (1 = premier)")


class MonInscriptionResponse(InscriptionResponse):
    evenement_titre: str
    evenement_date_debut: datetime
    evenement_lieu: str | None
    evenement_statut: StatutEvenement


class EvenementsParticipantResponse(OutputModel):
    inscription_id: uuid.UUID
    membre_id: uuid.UUID
    numero_membre: str
    prenom: str
    nom: str
    date_inscription: datetime
    date_confirmation: datetime | None


class FeedbackRequest(InputModel):
    note: int = Field(ge=1, le=5, description="Note de 1 à 5")
    commentaire: str | None = Field(default=None, max_length=2000)


class ModerationRequest(InputModel):
    regles = (Si("statut", StatutModeration.REJETE, "motif requis pour rejeter un feedback", requis=("motif",)),)

    statut: StatutModeration = Field(description="PUBLIE ou REJETE (EN_ATTENTE remet en attente)")
    motif: str | None = Field(default=None, max_length=500)


class EvenementsFeedbackResponse(OutputModel):
    id: uuid.UUID
    evenement_id: uuid.UUID
    membre_id: uuid.UUID
    note: int
    commentaire: str | None
    statut_moderation: StatutModeration
    motif_moderation: str | None = None
    date_moderation: datetime | None = None
    created_at: datetime


class FeedbackPublic(OutputModel):
    id: uuid.UUID
    note: int
    commentaire: str | None
    auteur: str = Field(description="Prénom et initiale du nom")
    created_at: datetime


class FeedbacksEvenementResponse(OutputModel):
    evenement_id: uuid.UUID
    note_moyenne: Taux | None
    nombre_feedbacks: int
    repartition: dict[str, int] = Field(description="Nombre de feedbacks publiés par note, clés '1' à '5'")
    feedbacks: list[FeedbackPublic]


class InscriptionsStats(OutputModel):
    confirmees: int
    en_attente: int
    annulees: int


class StatistiquesEvenements(ResultatCalcule):
    total: int
    par_statut: dict[str, int]
    par_type: dict[str, int]
    inscriptions: InscriptionsStats
    capacite_totale: int = Field(description="Somme des capacités des événements à capacité limitée")
    taux_remplissage: Taux | None = Field(description="Inscrits confirmés / capacité, en %, événements limités")
    note_moyenne_feedback: Taux | None
    nombre_feedbacks: int


class ConnectiviteResponse(OutputModel):
    status: EtatSante
    service: str
    database: EtatSante
    horodatage: datetime
