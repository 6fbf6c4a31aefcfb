"""Support tickets (docs/tickets-suggestions.md).

States: OUVERT → EN_COURS → RESOLU → FERME. Staff of the handling organisation move a ticket forward; the
first public staff reply on an OUVERT ticket takes it EN_COURS. The requester may confirm a RESOLU ticket
(FERME), withdraw an unresolved one (FERME), or reopen a RESOLU one (→ EN_COURS) within REOPEN_DAYS of its
resolution. FERME is final.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.membres.repository import nom_affiche
from unionflow.models import Ticket, TicketMessage
from unionflow.models.base import utcnow
from unionflow.models.organisation import TypeOrganisation
from unionflow.models.ticket import Destinataire, Priorite, StatutTicket
from unionflow.organisations.repository import OrganisationRepository
from unionflow.tickets.repository import TicketFilters, TicketRepository
from unionflow.tickets.schemas import (
    AssignationRequest,
    ChangementStatutRequest,
    CreateTicketRequest,
    TicketMessageResponse,
    TicketResponse,
    TicketsCreateMessageRequest,
    UpdateTicketRequest,
)

MODULE = "TICKETS"
REOPEN_DAYS = 7
# Wall-clock service levels by priority (no business-hours calendar).
FIRST_RESPONSE = {Priorite.URGENTE: timedelta(hours=4), Priorite.HAUTE: timedelta(hours=8),
                  Priorite.NORMALE: timedelta(hours=24), Priorite.BASSE: timedelta(hours=72)}
RESOLUTION = {Priorite.URGENTE: timedelta(days=1), Priorite.HAUTE: timedelta(days=3),
              Priorite.NORMALE: timedelta(days=7), Priorite.BASSE: timedelta(days=14)}
STATE_FIELDS = ["statut", "assigne_membre_id", "priorite", "categorie", "date_resolution", "date_fermeture",
                "nombre_reouvertures", "resolution"]
OPEN = (StatutTicket.OUVERT, StatutTicket.EN_COURS)


def to_response(ticket: Ticket, now: datetime | None = None) -> TicketResponse:
    now = now or utcnow()
    first = ticket.date_premiere_reponse
    active = ticket.statut in OPEN
    resolved_at = ticket.date_resolution or ticket.date_fermeture
    data = {k: getattr(ticket, k) for k in TicketResponse.model_fields if hasattr(ticket, k)}
    data["sla_premiere_reponse_depasse"] = (first > ticket.echeance_premiere_reponse if first
                                            else active and now > ticket.echeance_premiere_reponse)
    data["sla_resolution_depasse"] = (now > ticket.echeance_resolution if active
                                      else bool(resolved_at and resolved_at > ticket.echeance_resolution))
    data["reouvrable_jusqu_au"] = (ticket.date_resolution + timedelta(days=REOPEN_DAYS)
                                   if ticket.statut == StatutTicket.RESOLU and ticket.date_resolution else None)
    return TicketResponse.model_validate(data)


class TicketService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = TicketRepository(session, auth)

    async def _get(self, ticket_id: uuid.UUID, *, for_update: bool = False) -> Ticket:
        ticket = await self.repo.get(ticket_id, for_update=for_update)
        if ticket is None:
            raise NotFound("Ticket introuvable")
        return ticket

    def _is_staff(self, ticket: Ticket) -> bool:
        return self.auth.can(Permission.TICKET_TRAITER, ticket.organisation_id)

    def _is_requester(self, ticket: Ticket) -> bool:
        return self.auth.membre_id is not None and ticket.membre_id == self.auth.membre_id

    async def _union_of(self, organisation_id: uuid.UUID) -> uuid.UUID:
        """The UNION organisation at the top of the requester's organisation's hierarchy."""
        current = await OrganisationRepository(self.session, None).get(organisation_id)
        seen: set[uuid.UUID] = set()
        while current is not None and current.id not in seen:
            if current.type_organisation == TypeOrganisation.UNION:
                return current.id
            seen.add(current.id)
            current = (await OrganisationRepository(self.session, None).get(current.parent_id)
                       if current.parent_id else None)
        raise RegleMetier("Votre organisation n'est rattachée à aucune union: adressez le ticket à l'organisation")

    async def _audit(self, ticket: Ticket, action: str, before: dict[str, object] | None = None,
                     description: str | None = None) -> None:
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Ticket",
                           entite_id=ticket.id, organisation_id=ticket.organisation_id, before=before,
                           after=audit.snapshot(ticket, STATE_FIELDS), description=description)

    def _set_deadlines(self, ticket: Ticket) -> None:
        priorite = Priorite(ticket.priorite)
        ticket.echeance_premiere_reponse = ticket.created_at + FIRST_RESPONSE[priorite]
        ticket.echeance_resolution = ticket.created_at + RESOLUTION[priorite]

    async def creer(self, data: CreateTicketRequest) -> TicketResponse:
        if self.auth.membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: impossible d'ouvrir un ticket")
        if await OrganisationRepository(self.session, None).get(data.organisation_id) is None:
            raise NotFound("Organisation introuvable")
        if data.organisation_id not in self.auth.member_organisations:
            raise RegleMetier("organisationId: vous n'êtes pas membre actif de cette organisation")
        handler = (await self._union_of(data.organisation_id) if data.destinataire is Destinataire.UNION
                   else data.organisation_id)
        now = utcnow()
        ticket = Ticket(
            numero=await sequential_number(self.session, "TCK", now.year), organisation_id=handler,
            organisation_origine_id=data.organisation_id, destinataire=data.destinataire.value,
            membre_id=self.auth.membre_id, demandeur_sub=self.auth.personne,
            demandeur_nom=await nom_affiche(self.session, self.auth),
            sujet=data.sujet, description=data.description, categorie=data.categorie.value,
            priorite=data.priorite.value, statut=StatutTicket.OUVERT.value, nombre_reouvertures=0,
            created_at=now, updated_at=now)
        self._set_deadlines(ticket)
        self.repo.add(ticket)
        await self.session.flush()
        await self._audit(ticket, "CREER", description=f"Ticket {ticket.numero}")
        return to_response(ticket, now)

    async def obtenir(self, ticket_id: uuid.UUID) -> TicketResponse:
        return to_response(await self._get(ticket_id))

    async def queue(self, filters: TicketFilters, params: PageParams) -> Page[TicketResponse]:
        now = utcnow()
        rows, total, exact = await self.repo.queue(filters, params, now)
        return Page[TicketResponse].build([to_response(t, now) for t in rows], params, total, exact)

    async def mine(self, filters: TicketFilters, params: PageParams) -> Page[TicketResponse]:
        now = utcnow()
        rows, total, exact = await self.repo.mine(filters, params, now)
        return Page[TicketResponse].build([to_response(t, now) for t in rows], params, total, exact)

    async def modifier(self, ticket_id: uuid.UUID, data: UpdateTicketRequest) -> TicketResponse:
        ticket = await self._get(ticket_id, for_update=True)
        changes = data.model_dump(exclude_unset=True)
        nulls = [k for k, v in changes.items() if v is None]
        if nulls:
            raise RegleMetier(f"{', '.join(nulls)}: null interdit")
        if ticket.statut == StatutTicket.FERME:
            raise InvalidState("Ticket fermé: il n'est plus modifiable")
        if self._is_staff(ticket):
            # Staff triage the ticket; the requester's own words stay theirs.
            if {"sujet", "description"} & changes.keys() and not self._is_requester(ticket):
                raise Forbidden("Le sujet et la description appartiennent au demandeur")
        elif ticket.statut != StatutTicket.OUVERT:
            raise InvalidState("Le ticket est pris en charge: seul le bureau modifie sa catégorie ou sa priorité")
        if not changes:
            return to_response(ticket)
        before = audit.snapshot(ticket, [*STATE_FIELDS, "sujet", "description"])
        for key, value in changes.items():
            setattr(ticket, key, getattr(value, "value", value))
        if "priorite" in changes:
            self._set_deadlines(ticket)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Ticket",
                           entite_id=ticket.id, organisation_id=ticket.organisation_id, before=before,
                           after=audit.snapshot(ticket, [*STATE_FIELDS, "sujet", "description"]))
        return to_response(ticket)

    async def assigner(self, ticket_id: uuid.UUID, data: AssignationRequest) -> TicketResponse:
        ticket = await self._get(ticket_id, for_update=True)
        if not self._is_staff(ticket):
            raise Forbidden("Seul le bureau de l'organisation assigne un ticket")
        if ticket.statut == StatutTicket.FERME:
            raise InvalidState("Ticket fermé: il ne peut plus être assigné")
        if data.membre_id is not None and not await self.repo.is_staff_member(data.membre_id, ticket.organisation_id):
            raise RegleMetier("membreId: ce membre n'a pas de rôle de bureau actif dans l'organisation du ticket")
        if data.membre_id == ticket.assigne_membre_id:
            raise InvalidState("Le ticket est déjà assigné à ce membre" if data.membre_id
                               else "Le ticket n'est pas assigné")
        before = audit.snapshot(ticket, STATE_FIELDS)
        ticket.assigne_membre_id = data.membre_id
        ticket.date_assignation = utcnow() if data.membre_id else None
        await self.session.flush()
        await self._audit(ticket, "ASSIGNER" if data.membre_id else "DESASSIGNER", before)
        return to_response(ticket)

    async def _post(self, ticket: Ticket, contenu: str, *, staff: bool, interne: bool) -> TicketMessage:
        now, name = utcnow(), await nom_affiche(self.session, self.auth)
        message = TicketMessage(ticket_id=ticket.id, auteur_sub=self.auth.personne, auteur_nom=name,
                                auteur_membre_id=self.auth.membre_id, par_equipe=staff, interne=interne,
                                contenu=contenu, created_at=now)
        self.repo.add(message)
        if staff and not interne and ticket.date_premiere_reponse is None:
            ticket.date_premiere_reponse = now
        return message

    async def changer_statut(self, ticket_id: uuid.UUID, data: ChangementStatutRequest) -> TicketResponse:
        ticket = await self._get(ticket_id, for_update=True)
        staff, requester = self._is_staff(ticket), self._is_requester(ticket)
        current, target = StatutTicket(ticket.statut), data.statut
        if current is target:
            raise InvalidState(f"Le ticket est déjà {target.value}")
        if current is StatutTicket.FERME:
            raise InvalidState("Ticket fermé: statut final")
        now = utcnow()
        before = audit.snapshot(ticket, STATE_FIELDS)
        if target is StatutTicket.OUVERT:
            raise InvalidState("Un ticket ne revient pas à OUVERT: rouvrez-le (EN_COURS)")
        if target is StatutTicket.EN_COURS:
            if current is StatutTicket.RESOLU:
                if not staff:
                    if ticket.date_resolution and now > ticket.date_resolution + timedelta(days=REOPEN_DAYS):
                        raise InvalidState(f"Délai de réouverture dépassé ({REOPEN_DAYS} jours après la résolution)")
                    if not data.commentaire:
                        raise RegleMetier("commentaire: expliquez pourquoi le ticket doit être rouvert")
                ticket.nombre_reouvertures += 1
                ticket.date_resolution = None
                ticket.resolution = None
            elif not staff:
                raise Forbidden("Seul le bureau prend un ticket en charge")
        elif target is StatutTicket.RESOLU:
            if not staff:
                raise Forbidden("Seul le bureau résout un ticket")
            if not data.commentaire:
                raise RegleMetier("commentaire: la résolution est requise")
            ticket.resolution = data.commentaire
            ticket.date_resolution = now
        elif target is StatutTicket.FERME:
            if not staff and not requester:
                raise Forbidden("Seuls le demandeur et le bureau ferment un ticket")
            if staff and not requester and current is not StatutTicket.RESOLU and not data.commentaire:
                raise RegleMetier("commentaire: motif requis pour fermer un ticket non résolu")
            ticket.date_fermeture = now
        ticket.statut = target.value
        if data.commentaire:
            await self._post(ticket, data.commentaire, staff=staff, interne=False)
        await self.session.flush()
        await self._audit(ticket, f"STATUT_{target.value}", before, description=f"{current.value} → {target.value}")
        return to_response(ticket, now)

    async def messages(self, ticket_id: uuid.UUID) -> list[TicketMessageResponse]:
        ticket = await self._get(ticket_id)
        rows = await self.repo.messages(ticket.id, with_internal=self._is_staff(ticket))
        return [TicketMessageResponse.model_validate(m) for m in rows]

    async def ajouter_message(self, ticket_id: uuid.UUID, data: TicketsCreateMessageRequest) -> TicketMessageResponse:
        ticket = await self._get(ticket_id, for_update=True)
        staff = self._is_staff(ticket)
        if data.interne and not staff:
            raise Forbidden("Les notes internes sont réservées au bureau")
        if ticket.statut == StatutTicket.FERME:
            raise InvalidState("Ticket fermé: ouvrez un nouveau ticket")
        before = audit.snapshot(ticket, STATE_FIELDS)
        message = await self._post(ticket, data.contenu, staff=staff, interne=data.interne)
        if staff and not data.interne and ticket.statut == StatutTicket.OUVERT:
            ticket.statut = StatutTicket.EN_COURS.value
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ECRIRE", module=MODULE, entite_type="Ticket",
                           entite_id=ticket.id, organisation_id=ticket.organisation_id, before=before,
                           after={**audit.snapshot(ticket, STATE_FIELDS), "messageId": message.id,
                                  "interne": message.interne})
        return TicketMessageResponse.model_validate(message)
