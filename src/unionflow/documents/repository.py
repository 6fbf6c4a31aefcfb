from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, or_, select, true, update

from unionflow.core.auth import AuthContext
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import EVERY, SCOPE_MEMBRE, SCOPE_ORGANISATIONS, Shape, Visibility, scope_param
from unionflow.models import (
    Base,
    ConversationParticipant,
    Document,
    MessageConversation,
    PieceJointe,
    TelechargementDocument,
)
from unionflow.models.document import TypeEntite, VisibiliteDocument

# Target tables of attachments. Areas built on other branches (aid requests, tickets) are found by table
# name once their models are installed; until then that type answers 400.
ENTITY_TABLES = {
    "ADHESION": "adhesion", "MEMBRE": "membre", "DEMANDE_AIDE": "demande_aide", "EVENEMENT": "evenement",
    "PAIEMENT": "paiement", "TICKET": "ticket", "COTISATION": "cotisation", "ORGANISATION": "organisation",
}


# Bind parameters of the document rule beyond the shared ones: the caller (core.auth.person_key), his member
# organisations.
SCOPE_SUB = "scope_sub"
SCOPE_MEMBRES_DE = "scope_membres_de"

@dataclass(frozen=True)
class Target:
    organisation_id: uuid.UUID | None
    membre_id: uuid.UUID | None


class DocumentRepository(ScopedRepository[Document]):
    """Owner; ADMIN; staff of the document's organisation or of an attached entity's organisation; members of
    the organisation for ORGANISATION documents; the current participants of a conversation for the voice notes
    sent in it."""

    model = Document
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is None or auth.is_global:
            return EVERY
        return Visibility(Shape(organisations=bool(auth.staff_organisations or auth.member_organisations),
                                membre=auth.membre_id is not None),
                          {SCOPE_SUB: auth.personne, SCOPE_ORGANISATIONS: sorted(auth.staff_organisations),
                           SCOPE_MEMBRES_DE: sorted(auth.member_organisations), SCOPE_MEMBRE: auth.membre_id})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        if shape.every:
            return true()
        conditions: list[ColumnElement[bool]] = [Document.proprietaire_sub == scope_param(SCOPE_SUB, values)]
        if shape.organisations:
            staff = scope_param(SCOPE_ORGANISATIONS, values, expanding=True)
            conditions.append(Document.organisation_id.in_(staff))
            staff = scope_param(SCOPE_ORGANISATIONS, values, expanding=True)
            conditions.append(exists().where(PieceJointe.document_id == Document.id,
                                             PieceJointe.organisation_id.in_(staff)))
            conditions.append((Document.visibilite == VisibiliteDocument.ORGANISATION) & Document.organisation_id.in_(
                scope_param(SCOPE_MEMBRES_DE, values, expanding=True)))
        if shape.membre:
            # Voice notes: the current participants of a conversation hear the audio sent in it.
            conditions.append(exists().where(
                MessageConversation.document_id == Document.id,
                ConversationParticipant.conversation_id == MessageConversation.conversation_id,
                ConversationParticipant.membre_id == scope_param(SCOPE_MEMBRE, values),
                ConversationParticipant.date_depart.is_(None)))
        return or_(*conditions)

    async def mine(self) -> list[Document]:
        stmt = (select(Document).where(Document.proprietaire_sub == self.auth.personne)
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
        if type_entite == TypeEntite.ORGANISATION:
            return Target(organisation_id=entite_id, membre_id=None)
        if type_entite == TypeEntite.MEMBRE:
            return Target(organisation_id=None, membre_id=entite_id)
        return Target(organisation_id=row.get("organisation_id"), membre_id=row.get("membre_id"))

    async def increment_downloads(self, document_id: uuid.UUID, when: datetime) -> None:
        # One atomic increment: concurrent downloads never lose a count.
        await self.session.execute(update(Document).where(Document.id == document_id).values(
            nombre_telechargements=Document.nombre_telechargements + 1, date_dernier_telechargement=when))

    async def download_ticket(self, document_id: uuid.UUID, ticket_id: uuid.UUID, personne: str,
                              not_before: datetime) -> TelechargementDocument | None:
        stmt = select(TelechargementDocument).where(
            TelechargementDocument.id == ticket_id, TelechargementDocument.document_id == document_id,
            TelechargementDocument.utilisateur_sub == personne,
            TelechargementDocument.date_telechargement >= not_before)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def supprimer_documents(self, ids: list[uuid.UUID]) -> list[tuple[str, str]]:
        """Retention (donnees_membre/jobs.py): deletes the documents ``ids``, their download tickets and
        attachments; returns each one's (storage key, backend) for the caller to delete the file."""
        if not ids:
            return []
        fichiers = (await self.session.execute(select(Document.cle_stockage, Document.backend_stockage)
                                               .where(Document.id.in_(ids)))).all()
        for table in (TelechargementDocument, PieceJointe):
            await self.session.execute(delete(table).where(table.document_id.in_(ids)))
        await self.session.execute(delete(Document).where(Document.id.in_(ids)))
        return [(str(cle), str(backend)) for cle, backend in fichiers if cle is not None]

