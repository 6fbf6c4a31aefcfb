from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, model_validator

from unionflow.core.regles import DONNE, Si, UnSeul
from unionflow.core.schemas import InputModel, OutputModel, regle_metier
from unionflow.models.messagerie import TypeConversation, TypeMessage


class CreateConversationRequest(InputModel):
    regles = (Si("type", TypeConversation.GROUPE, "titre: requis pour une conversation GROUPE", requis=("titre",)),)

    organisation_id: uuid.UUID = Field(description="Organisation commune: l'appelant et les participants en sont "
                                                   "membres actifs")
    type: TypeConversation = TypeConversation.DIRECTE
    participant_ids: list[uuid.UUID] = Field(min_length=1, max_length=100,
                                             description="Membres invités (sans l'appelant); un seul pour DIRECTE")
    titre: str | None = Field(default=None, min_length=1, max_length=200, description="Requis pour GROUPE")

    @model_validator(mode="after")
    def _shape(self) -> CreateConversationRequest:
        if self.type is TypeConversation.DIRECTE and len(set(self.participant_ids)) != 1:
            raise regle_metier("participantIds: une conversation DIRECTE a exactement un autre participant")
        return self


class AddParticipantsRequest(InputModel):
    membre_ids: list[uuid.UUID] = Field(min_length=1, max_length=100)


class CreateMessageRequest(InputModel):
    regles = (UnSeul(("contenu", "document_id"), "contenu (texte) ou documentId (note vocale): l'un des deux "
                                                 "exactement"),
              Si("duree_secondes", DONNE, "dureeSecondes: seulement pour une note vocale", requis=("document_id",)))

    contenu: str | None = Field(default=None, min_length=1, max_length=5000)
    document_id: uuid.UUID | None = Field(
        default=None, description="Note vocale: document audio téléversé par l'appelant (OGG/Opus, MP3, M4A/AAC, "
                                  "WAV)")
    duree_secondes: int | None = Field(default=None, ge=1, le=3600, description="Durée de la note vocale")


class MessagerieParticipantResponse(OutputModel):
    membre_id: uuid.UUID
    nom: str
    date_ajout: datetime


class ConversationResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    type: TypeConversation
    titre: str | None
    participants: list[MessagerieParticipantResponse]
    cree_par_membre_id: uuid.UUID
    dernier_message_at: datetime | None
    non_lus: int = Field(description="Messages des autres participants après votre dernière lecture")
    created_at: datetime


class MessageResponse(OutputModel):
    id: uuid.UUID
    conversation_id: uuid.UUID
    auteur_membre_id: uuid.UUID
    auteur_nom: str
    type: TypeMessage
    contenu: str | None
    document_id: uuid.UUID | None
    duree_secondes: int | None
    created_at: datetime


class NonLusResponse(OutputModel):
    total: int = Field(description="Messages non lus, toutes conversations")
    conversations: int = Field(description="Conversations ayant au moins un message non lu")
