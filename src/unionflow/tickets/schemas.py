from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel, UpdateModel
from unionflow.models.ticket import CategorieTicket, Destinataire, Priorite, StatutTicket


class CreateTicketRequest(InputModel):
    organisation_id: uuid.UUID = Field(description="Organisation du demandeur (dont il est membre actif)")
    destinataire: Destinataire = Field(
        default=Destinataire.ORGANISATION,
        description="ORGANISATION: le bureau de l'organisation; UNION: l'union en tête de sa hiérarchie")
    sujet: str = Field(min_length=3, max_length=200)
    description: str = Field(min_length=3, max_length=10000)
    categorie: CategorieTicket = CategorieTicket.AUTRE
    priorite: Priorite = Priorite.NORMALE


class UpdateTicketRequest(UpdateModel):
    """Requester: sujet, description, categorie, priorite while OUVERT. Staff: categorie, priorite until FERME."""

    sujet: str | None = Field(default=None, min_length=3, max_length=200)
    description: str | None = Field(default=None, min_length=3, max_length=10000)
    categorie: CategorieTicket | None = None
    priorite: Priorite | None = None


class AssignationRequest(InputModel):
    membre_id: uuid.UUID | None = Field(
        description="Membre du bureau de l'organisation qui traite le ticket; null pour désassigner")


class ChangementStatutRequest(InputModel):
    statut: StatutTicket
    commentaire: str | None = Field(
        default=None, max_length=5000,
        description="Ajouté au fil comme réponse publique; requis pour RESOLU (la résolution) et la réouverture")


class TicketsCreateMessageRequest(InputModel):
    contenu: str = Field(min_length=1, max_length=10000)
    interne: bool = Field(default=False, description="Note interne du bureau, invisible du demandeur")


class TicketResponse(OutputModel):
    id: uuid.UUID
    numero: str
    organisation_id: uuid.UUID
    organisation_origine_id: uuid.UUID
    destinataire: Destinataire
    membre_id: uuid.UUID
    demandeur_nom: str
    sujet: str
    description: str
    categorie: CategorieTicket
    priorite: Priorite
    statut: StatutTicket
    assigne_membre_id: uuid.UUID | None
    date_assignation: datetime | None
    echeance_premiere_reponse: datetime
    date_premiere_reponse: datetime | None
    echeance_resolution: datetime
    date_resolution: datetime | None
    date_fermeture: datetime | None
    nombre_reouvertures: int
    resolution: str | None
    sla_premiere_reponse_depasse: bool = Field(
        description="Première réponse arrivée (ou toujours attendue) après l'échéance")
    sla_resolution_depasse: bool
    reouvrable_jusqu_au: datetime | None = Field(
        description="Statut RESOLU: date limite à laquelle le demandeur peut rouvrir le ticket")
    created_at: datetime
    updated_at: datetime


class TicketMessageResponse(OutputModel):
    id: uuid.UUID
    ticket_id: uuid.UUID
    auteur_nom: str
    auteur_membre_id: uuid.UUID | None
    par_equipe: bool
    interne: bool
    contenu: str
    created_at: datetime
