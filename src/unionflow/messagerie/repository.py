from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, false, func, or_, select, update

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import SCOPE_MEMBRE, Shape, Visibility, scope_param
from unionflow.models import Conversation, ConversationParticipant, MessageConversation

P = ConversationParticipant
M = MessageConversation


class ConversationRepository(ScopedRepository[Conversation]):
    """Only current participants reach a conversation: no role (not even ADMIN) reads others' messages."""

    model = Conversation
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        membre_id = auth.membre_id if auth is not None else None
        return Visibility(Shape(membre=membre_id is not None), {SCOPE_MEMBRE: membre_id})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        if not shape.membre:
            return false()
        return exists().where(P.conversation_id == Conversation.id, P.membre_id == scope_param(SCOPE_MEMBRE, values),
                              P.date_depart.is_(None))

    async def mine(self, params: PageParams) -> tuple[list[Conversation], int, bool]:
        if self.auth.membre_id is None:
            return [], 0, True
        last = func.coalesce(Conversation.dernier_message_at, Conversation.created_at)
        return await self.paginate(self.select().order_by(last.desc(), Conversation.id), params)

    async def direct(self, organisation_id: uuid.UUID, key: str) -> Conversation | None:
        stmt = select(Conversation).where(Conversation.organisation_id == organisation_id,
                                          Conversation.cle_directe == key)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def participants(self, ids: list[uuid.UUID]) -> dict[uuid.UUID, list[ConversationParticipant]]:
        """The current participants of each conversation, in order of arrival (their names: membres)."""
        stmt = (select(P).where(P.conversation_id.in_(ids), P.date_depart.is_(None)).order_by(P.date_ajout, P.id))
        found: dict[uuid.UUID, list[ConversationParticipant]] = {i: [] for i in ids}
        for participant in (await self.session.execute(stmt)).scalars():
            found[participant.conversation_id].append(participant)
        return found

    async def participant(self, conversation_id: uuid.UUID, membre_id: uuid.UUID) -> ConversationParticipant | None:
        stmt = select(P).where(P.conversation_id == conversation_id, P.membre_id == membre_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def unread(self, ids: list[uuid.UUID] | None = None) -> dict[uuid.UUID, int]:
        """Unread messages per conversation of the caller (others' messages after their last read)."""
        if self.auth.membre_id is None:
            return {}
        stmt = (select(M.conversation_id, func.count())
                .join(P, and_(P.conversation_id == M.conversation_id, P.membre_id == self.auth.membre_id,
                              P.date_depart.is_(None)))
                .where(M.auteur_membre_id != self.auth.membre_id,
                       or_(P.dernier_lu_at.is_(None), M.created_at > P.dernier_lu_at))
                .group_by(M.conversation_id))
        if ids is not None:
            stmt = stmt.where(M.conversation_id.in_(ids))
        return {cid: int(n) for cid, n in (await self.session.execute(stmt)).all()}

    async def messages(self, conversation_id: uuid.UUID, params: PageParams) -> tuple[list[Any], int, bool]:
        stmt = (select(M).where(M.conversation_id == conversation_id).order_by(M.created_at.desc(), M.id.desc()))
        return await self.paginate(stmt, params)

    async def latest_message_at(self, conversation_id: uuid.UUID) -> datetime | None:
        stmt = select(func.max(M.created_at)).where(M.conversation_id == conversation_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def effacer_messages_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the text of messages written before ``limite``
        becomes ``texte``; who wrote when stays, so a conversation keeps its shape."""
        stmt = (update(MessageConversation)
                .where(MessageConversation.created_at < limite, MessageConversation.contenu.is_not(None),
                       MessageConversation.contenu != texte)
                .values(contenu=texte))
        return await self.lignes_touchees(stmt)

    async def detacher_notes_vocales_avant(self, limite: datetime) -> list[uuid.UUID]:
        """Retention: voice notes recorded before ``limite`` lose their audio (the documents returned, which
        documents/ deletes); the message stays (who, when, how long), as a blanked text does."""
        stmt = select(MessageConversation.document_id).where(MessageConversation.created_at < limite,
                                                             MessageConversation.document_id.is_not(None))
        ids = [i for i in (await self.session.execute(stmt)).scalars() if i is not None]
        if ids:
            await self.session.execute(update(MessageConversation).where(MessageConversation.document_id.in_(ids))
                                       .values(document_id=None))
        return ids

