from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, exists, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.models import (
    Base,
    ConversationParticipant,
    Document,
    MessageConversation,
    Organisation,
    PieceJointe,
    TelechargementDocument,
)

# Target tables of attachments. Areas built on other branches (aid requests, tickets) are found by table
# name once their models are installed; until then that type answers 400.
ENTITY_TABLES = {
    "ADHESION": "adhesion", "MEMBRE": "membre", "DEMANDE_AIDE": "demande_aide", "EVENEMENT": "evenement",
    "PAIEMENT": "paiement", "TICKET": "ticket", "COTISATION": "cotisation", "ORGANISATION": "organisation",
}


@dataclass(frozen=True)
class Target:
    organisation_id: uuid.UUID | None
    membre_id: uuid.UUID | None


class DocumentRepository:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def visible(self) -> ColumnElement[bool]:
        """Owner; ADMIN; staff of the document's organisation or of an attached entity's organisation;
        members of the organisation for ORGANISATION documents."""
        auth = self.auth
        if auth.is_global:
            return true()
        conditions: list[ColumnElement[bool]] = [Document.proprietaire_sub == auth.sub]
        staff = auth.staff_organisations
        if staff:
            conditions.append(Document.organisation_id.in_(staff))
            conditions.append(exists().where(PieceJointe.document_id == Document.id,
                                             PieceJointe.organisation_id.in_(staff)))
        if auth.member_organisations:
            conditions.append((Document.visibilite == "ORGANISATION")
                              & Document.organisation_id.in_(auth.member_organisations))
        if auth.membre_id is not None:
            # Voice notes: the current participants of a conversation hear the audio sent in it.
            conditions.append(exists().where(
                MessageConversation.document_id == Document.id,
                ConversationParticipant.conversation_id == MessageConversation.conversation_id,
                ConversationParticipant.membre_id == auth.membre_id, ConversationParticipant.date_depart.is_(None)))
        return or_(*conditions)

    def _select(self) -> Select[Any]:
        return select(Document).where(self.visible())

    async def get(self, document_id: uuid.UUID, *, for_update: bool = False) -> Document | None:
        stmt = self._select().where(Document.id == document_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def mine(self) -> list[Document]:
        stmt = (select(Document).where(Document.proprietaire_sub == self.auth.sub)
                .order_by(Document.created_at.desc(), Document.id))
        return list((await self.session.execute(stmt)).scalars())

    async def attachments(self, document_id: uuid.UUID) -> list[PieceJointe]:
        stmt = (select(PieceJointe).where(PieceJointe.document_id == document_id)
                .order_by(PieceJointe.created_at, PieceJointe.id))
        return list((await self.session.execute(stmt)).scalars())

    async def attachment_exists(self, document_id: uuid.UUID, type_entite: str, entite_id: uuid.UUID) -> bool:
        stmt = select(PieceJointe.id).where(PieceJointe.document_id == document_id,
                                            PieceJointe.type_entite == type_entite,
                                            PieceJointe.entite_id == entite_id)
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def target(self, type_entite: str, entite_id: uuid.UUID) -> Target | None:
        table = Base.metadata.tables.get(ENTITY_TABLES[type_entite])
        if table is None:
            return None
        columns = [table.c.id]
        for name in ("organisation_id", "membre_id"):
            if name in table.c:
                columns.append(table.c[name])
        row = (await self.session.execute(select(*columns).where(table.c.id == entite_id))).mappings().first()
        if row is None:
            raise LookupError(type_entite)
        if type_entite == "ORGANISATION":
            return Target(organisation_id=entite_id, membre_id=None)
        if type_entite == "MEMBRE":
            return Target(organisation_id=None, membre_id=entite_id)
        return Target(organisation_id=row.get("organisation_id"), membre_id=row.get("membre_id"))

    async def organisation_exists(self, organisation_id: uuid.UUID) -> bool:
        stmt = select(Organisation.id).where(Organisation.id == organisation_id)
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def count_download(self, document_id: uuid.UUID, when: datetime) -> None:
        # One atomic increment: concurrent downloads never lose a count.
        await self.session.execute(update(Document).where(Document.id == document_id).values(
            nombre_telechargements=Document.nombre_telechargements + 1, date_dernier_telechargement=when))

    async def download_ticket(self, document_id: uuid.UUID, ticket_id: uuid.UUID, sub: str,
                              not_before: datetime) -> TelechargementDocument | None:
        stmt = select(TelechargementDocument).where(
            TelechargementDocument.id == ticket_id, TelechargementDocument.document_id == document_id,
            TelechargementDocument.utilisateur_sub == sub,
            TelechargementDocument.date_telechargement >= not_before)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    def add(self, row: Any) -> None:
        self.session.add(row)
