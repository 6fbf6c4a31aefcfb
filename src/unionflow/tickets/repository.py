from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, false, or_, select, update

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contains_ci, contient
from unionflow.core.repository import ScopedRepository
from unionflow.core.roles import ORGANISATION_STAFF_ROLES
from unionflow.models import MembreOrganisation, Ticket, TicketMessage
from unionflow.models.membre import StatutAppartenance
from unionflow.models.ticket import StatutTicket

_PRIORITY_RANK = case({"URGENTE": 0, "HAUTE": 1, "NORMALE": 2, "BASSE": 3}, value=Ticket.priorite, else_=4)


@dataclass(frozen=True)
class TicketFilters:
    statut: str | None = None
    priorite: str | None = None
    categorie: str | None = None
    organisation_id: uuid.UUID | None = None
    assigne_membre_id: uuid.UUID | None = None
    non_assigne: bool = False
    sla_depasse: bool = False
    q: str | None = None
    tri: str = "PRIORITE"


class TicketRepository(ScopedRepository[Ticket]):
    """Requester sees own tickets; staff of the handling organisation see its tickets; ADMIN all
    (the default scope)."""

    model = Ticket
    personal = True
    auth: AuthContext

    def _handled(self) -> ColumnElement[bool]:
        """The staff queue: tickets the caller handles, not the ones they opened as a member."""
        return self.in_scope(Ticket.organisation_id)

    def _filtered(self, stmt: Select[Any], filters: TicketFilters, now: datetime) -> Select[Any]:
        if filters.statut:
            stmt = stmt.where(Ticket.statut == filters.statut)
        if filters.priorite:
            stmt = stmt.where(Ticket.priorite == filters.priorite)
        if filters.categorie:
            stmt = stmt.where(Ticket.categorie == filters.categorie)
        if filters.organisation_id:
            stmt = stmt.where(Ticket.organisation_id == filters.organisation_id)
        if filters.assigne_membre_id:
            stmt = stmt.where(Ticket.assigne_membre_id == filters.assigne_membre_id)
        if filters.non_assigne:
            stmt = stmt.where(Ticket.assigne_membre_id.is_(None))
        if filters.sla_depasse:
            open_ = Ticket.statut.in_((StatutTicket.OUVERT, StatutTicket.EN_COURS))
            stmt = stmt.where(or_(
                and_(Ticket.date_premiere_reponse.is_(None), Ticket.echeance_premiere_reponse < now, open_),
                Ticket.date_premiere_reponse > Ticket.echeance_premiere_reponse,
                and_(open_, Ticket.echeance_resolution < now),
            ))
        if filters.q:
            # Words without accents nor case; a pasted number ("TCK-2026-000123") as typed, since the word
            # search joins digit groups (phones are typed in groups).
            stmt = stmt.where(or_(contient(Ticket.recherche, filters.q), contains_ci([Ticket.numero], filters.q)))
        if filters.tri == "DATE":
            return stmt.order_by(Ticket.created_at.desc(), Ticket.id)
        return stmt.order_by(_PRIORITY_RANK, Ticket.created_at, Ticket.id)

    async def queue(self, filters: TicketFilters, params: PageParams, now: datetime) -> tuple[list[Ticket], int, bool]:
        return await self.paginate(self._filtered(select(Ticket).where(self._handled()), filters, now), params)

    async def mine(self, filters: TicketFilters, params: PageParams, now: datetime) -> tuple[list[Ticket], int, bool]:
        own = Ticket.membre_id == self.auth.membre_id if self.auth.membre_id else false()
        return await self.paginate(self._filtered(select(Ticket).where(own), filters, now), params)

    async def messages(self, ticket_id: uuid.UUID, *, with_internal: bool) -> list[TicketMessage]:
        stmt = select(TicketMessage).where(TicketMessage.ticket_id == ticket_id)
        if not with_internal:
            stmt = stmt.where(TicketMessage.interne.is_(False))
        return list((await self.session.execute(stmt.order_by(TicketMessage.created_at, TicketMessage.id))).scalars())

    async def is_staff_member(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> bool:
        stmt = select(MembreOrganisation.roles).where(MembreOrganisation.membre_id == membre_id,
                                                      MembreOrganisation.organisation_id == organisation_id,
                                                      MembreOrganisation.statut == StatutAppartenance.ACTIF)
        roles = (await self.session.execute(stmt)).scalar_one_or_none()
        return bool(roles) and not ORGANISATION_STAFF_ROLES.isdisjoint(roles or ())

    async def effacer_fermes_avant(self, limite: datetime, texte: str, lot: int = 500) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the texts of tickets closed before ``limite`` (subject,
        description, resolution, requester's name, every message) become ``texte``; number, category, dates and
        the member link stay for the statistics. Through the ORM, in batches: its flush recomputes the search key
        (numero, sujet, description), which a bulk UPDATE would leave holding the old words."""
        total = 0
        while True:
            stmt = (select(Ticket).where(Ticket.statut == StatutTicket.FERME.value, Ticket.date_fermeture < limite,
                                         Ticket.description != texte).order_by(Ticket.id).limit(lot))
            tickets = list((await self.session.execute(stmt)).scalars())
            if not tickets:
                return total
            for ticket in tickets:
                ticket.sujet = ticket.description = ticket.demandeur_nom = texte
                ticket.resolution = texte if ticket.resolution is not None else None
            await self.session.execute(update(TicketMessage).where(TicketMessage.ticket_id.in_([t.id for t in tickets]))
                                       .values(contenu=texte))
            await self.session.flush()
            total += len(tickets)
