"""Messaging between members of one organisation (docs/tickets-suggestions.md, "Messagerie").

Only current participants reach a conversation (404 for everyone else, ADMIN included). A DIRECTE conversation
joins exactly two members and is unique per pair and organisation; a GROUPE has a title, members may be added
by any participant and may leave. Messages are text or voice notes (an audio document uploaded by the author).
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.documents.repository import DocumentRepository
from unionflow.membres.repository import MembreRepository
from unionflow.messagerie.repository import ConversationRepository
from unionflow.messagerie.schemas import (
    AddParticipantsRequest,
    ConversationResponse,
    CreateConversationRequest,
    CreateMessageRequest,
    MessageResponse,
    MessagerieParticipantResponse,
    NonLusResponse,
)
from unionflow.models import Conversation, ConversationParticipant, MessageConversation
from unionflow.models.base import utcnow
from unionflow.models.messagerie import TypeConversation, TypeMessage
from unionflow.organisations.repository import OrganisationRepository

MODULE = "MESSAGERIE"


class MessagerieService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ConversationRepository(session, auth)
        # Names and memberships of the people the caller already reaches (its conversations' participants),
        # read from their owner, membres, without the register's scope.
        self.membres = MembreRepository(session, None)

    @property
    def _me(self) -> uuid.UUID:
        if self.auth.membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: messagerie indisponible")
        return self.auth.membre_id

    async def _get(self, conversation_id: uuid.UUID, *, for_update: bool = False) -> Conversation:
        conversation = await self.repo.get(conversation_id, for_update=for_update)
        if conversation is None:
            raise NotFound("Conversation introuvable")
        return conversation

    async def _responses(self, conversations: list[Conversation]) -> list[ConversationResponse]:
        ids = [c.id for c in conversations]
        participants = await self.repo.participants(ids)
        names = await self.membres.noms({p.membre_id for rows in participants.values() for p in rows})
        unread = await self.repo.unread(ids)
        return [ConversationResponse(
            id=c.id, organisation_id=c.organisation_id, type=TypeConversation(c.type_conversation), titre=c.titre,
            participants=[MessagerieParticipantResponse(membre_id=p.membre_id, nom=names.get(p.membre_id, ""),
                                              date_ajout=p.date_ajout) for p in participants[c.id]],
            cree_par_membre_id=c.cree_par_membre_id, dernier_message_at=c.dernier_message_at,
            non_lus=unread.get(c.id, 0), created_at=c.created_at) for c in conversations]

    async def _response(self, conversation: Conversation) -> ConversationResponse:
        return (await self._responses([conversation]))[0]

    async def _check_members(self, organisation_id: uuid.UUID, membre_ids: set[uuid.UUID]) -> None:
        missing = membre_ids - await self.membres.actifs_parmi(organisation_id, membre_ids)
        if missing:
            raise RegleMetier("Ne sont pas membres actifs de l'organisation: "
                               + ", ".join(sorted(str(m) for m in missing)))

    def _join(self, conversation: Conversation, membre_id: uuid.UUID) -> None:
        now = utcnow()
        self.repo.add(ConversationParticipant(conversation_id=conversation.id, membre_id=membre_id, date_ajout=now,
                                              dernier_lu_at=now if membre_id == self.auth.membre_id else None))

    async def creer(self, data: CreateConversationRequest) -> tuple[ConversationResponse, bool]:
        """The conversation and whether it was created (False: the pair's existing DIRECTE conversation)."""
        me = self._me
        if not await OrganisationRepository(self.session, None).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        if data.organisation_id not in self.auth.member_organisations:
            raise RegleMetier("organisationId: vous n'êtes pas membre actif de cette organisation")
        others = set(data.participant_ids) - {me}
        if not others:
            raise RegleMetier("participantIds: invitez au moins un autre membre")
        await self._check_members(data.organisation_id, others)
        key = None
        if data.type is TypeConversation.DIRECTE:
            key = ":".join(sorted([str(me), str(next(iter(others)))]))
            existing = await self.repo.direct(data.organisation_id, key)
            if existing is not None:
                return await self._response(existing), False
        conversation = Conversation(organisation_id=data.organisation_id, type_conversation=data.type.value,
                                    titre=data.titre, cle_directe=key, cree_par_membre_id=me)
        try:
            # Two members opening their thread at the same moment meet the unique key: both get the same one.
            async with self.session.begin_nested():
                self.repo.add(conversation)
                await self.session.flush()
        except IntegrityError:
            existing = await self.repo.direct(data.organisation_id, key) if key else None
            if existing is None:
                raise
            return await self._response(existing), False
        for membre_id in [me, *sorted(others)]:
            self._join(conversation, membre_id)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Conversation",
                           entite_id=conversation.id, organisation_id=conversation.organisation_id,
                           after={"type": conversation.type_conversation, "participants": [me, *sorted(others)]})
        return await self._response(conversation), True

    async def mine(self, params: PageParams) -> Page[ConversationResponse]:
        rows, total, exact = await self.repo.mine(params)
        return Page[ConversationResponse].build(await self._responses(rows), params, total, exact)

    async def obtenir(self, conversation_id: uuid.UUID) -> ConversationResponse:
        return await self._response(await self._get(conversation_id))

    async def ajouter_participants(self, conversation_id: uuid.UUID,
                                   data: AddParticipantsRequest) -> ConversationResponse:
        conversation = await self._get(conversation_id, for_update=True)
        if conversation.type_conversation != TypeConversation.GROUPE:
            raise InvalidState("Une conversation DIRECTE reste à deux: créez un groupe")
        wanted = set(data.membre_ids)
        await self._check_members(conversation.organisation_id, wanted)
        added = []
        for membre_id in sorted(wanted):
            row = await self.repo.participant(conversation.id, membre_id)
            if row is None:
                self._join(conversation, membre_id)
            elif row.date_depart is not None:
                row.date_depart, row.date_ajout, row.dernier_lu_at = None, utcnow(), None
            else:
                continue
            added.append(membre_id)
        if not added:
            raise InvalidState("Ces membres participent déjà à la conversation")
        await self.session.flush()
        await audit.record(self.session, self.auth, action="AJOUTER_PARTICIPANTS", module=MODULE,
                           entite_type="Conversation", entite_id=conversation.id,
                           organisation_id=conversation.organisation_id, after={"ajoutes": added})
        return await self._response(conversation)

    async def quitter(self, conversation_id: uuid.UUID) -> None:
        conversation = await self._get(conversation_id, for_update=True)
        if conversation.type_conversation != TypeConversation.GROUPE:
            raise InvalidState("On ne quitte pas une conversation DIRECTE")
        row = await self.repo.participant(conversation.id, self._me)
        assert row is not None  # _get found the caller among the current participants
        row.date_depart = utcnow()
        await self.session.flush()
        await audit.record(self.session, self.auth, action="QUITTER", module=MODULE, entite_type="Conversation",
                           entite_id=conversation.id, organisation_id=conversation.organisation_id)

    async def messages(self, conversation_id: uuid.UUID, params: PageParams) -> Page[MessageResponse]:
        conversation = await self._get(conversation_id)
        rows, total, exact = await self.repo.messages(conversation.id, params)
        names = await self.membres.noms({m.auteur_membre_id for m in rows})
        return Page[MessageResponse].build([self._message(m, names) for m in rows], params, total, exact)

    @staticmethod
    def _message(message: MessageConversation, names: dict[uuid.UUID, str]) -> MessageResponse:
        return MessageResponse(id=message.id, conversation_id=message.conversation_id,
                               auteur_membre_id=message.auteur_membre_id,
                               auteur_nom=names.get(message.auteur_membre_id, ""),
                               type=TypeMessage(message.type_message), contenu=message.contenu,
                               document_id=message.document_id, duree_secondes=message.duree_secondes,
                               created_at=message.created_at)

    async def envoyer(self, conversation_id: uuid.UUID, data: CreateMessageRequest) -> MessageResponse:
        # The row lock orders the messages of one conversation and its last-message time.
        conversation = await self._get(conversation_id, for_update=True)
        me = self._me
        if conversation.organisation_id not in self.auth.member_organisations:
            raise Forbidden("Vous n'êtes plus membre actif de l'organisation de cette conversation")
        if data.document_id is not None:
            document = await DocumentRepository(self.session, self.auth).get(data.document_id)
            if document is None:
                raise NotFound("Document introuvable")
            if document.proprietaire_sub != self.auth.personne:
                raise RegleMetier("documentId: une note vocale est un document que vous avez téléversé")
            if not (document.type_mime or "").startswith("audio/"):
                raise RegleMetier("documentId: le document n'est pas un fichier audio (OGG/Opus, MP3, M4A/AAC, WAV)")
        now = utcnow()
        message = MessageConversation(
            conversation_id=conversation.id, auteur_membre_id=me, created_at=now, contenu=data.contenu,
            type_message=(TypeMessage.VOCAL if data.document_id else TypeMessage.TEXTE).value,
            document_id=data.document_id, duree_secondes=data.duree_secondes)
        self.repo.add(message)
        conversation.dernier_message_at = now
        row = await self.repo.participant(conversation.id, me)
        if row is not None:
            row.dernier_lu_at = now
        await self.session.flush()
        # Metadata only: private message text stays out of the audit trail.
        await audit.record(self.session, self.auth, action="ECRIRE", module=MODULE, entite_type="Conversation",
                           entite_id=conversation.id, organisation_id=conversation.organisation_id,
                           after={"messageId": message.id, "type": message.type_message,
                                  "documentId": message.document_id})
        return self._message(message, await self.membres.noms({me}))

    async def marquer_lu(self, conversation_id: uuid.UUID) -> ConversationResponse:
        conversation = await self._get(conversation_id)
        row = await self.repo.participant(conversation.id, self._me)
        assert row is not None
        row.dernier_lu_at = await self.repo.latest_message_at(conversation.id) or utcnow()
        await self.session.flush()
        return await self._response(conversation)

    async def unread_total(self) -> NonLusResponse:
        counts = await self.repo.unread()
        return NonLusResponse(total=sum(counts.values()), conversations=sum(1 for n in counts.values() if n))
