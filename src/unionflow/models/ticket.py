"""Support tickets: a member asks their organisation (or the union) for help; staff answer in a thread."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin, utcnow
from unionflow.models.texte import colonne_recherche


class Priorite(StrEnum):
    BASSE = "BASSE"
    NORMALE = "NORMALE"
    HAUTE = "HAUTE"
    URGENTE = "URGENTE"


class StatutTicket(StrEnum):
    OUVERT = "OUVERT"
    EN_COURS = "EN_COURS"
    RESOLU = "RESOLU"
    FERME = "FERME"


class CategorieTicket(StrEnum):
    ADHESION = "ADHESION"
    COTISATION = "COTISATION"
    PAIEMENT = "PAIEMENT"
    EVENEMENT = "EVENEMENT"
    COMPTE = "COMPTE"
    DOCUMENT = "DOCUMENT"
    TECHNIQUE = "TECHNIQUE"
    AUTRE = "AUTRE"


class Destinataire(StrEnum):
    ORGANISATION = "ORGANISATION"
    UNION = "UNION"


class Ticket(IdMixin, TimestampMixin, Base):
    # Table name "ticket" and the columns organisation_id/membre_id are what documents' attachments
    # (type TICKET) resolve: keep them.
    __tablename__ = "ticket"

    numero: Mapped[str] = mapped_column(String(30), unique=True)
    # Organisation whose staff handles the ticket: the requester's organisation, or the union at the top
    # of its hierarchy when addressed to the union.
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    organisation_origine_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    destinataire: Mapped[str] = mapped_column(String(20))  # ORGANISATION, UNION
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    demandeur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    demandeur_nom: Mapped[str] = mapped_column(String(254))
    sujet: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    categorie: Mapped[str] = mapped_column(String(20))
    priorite: Mapped[str] = mapped_column(String(10))
    statut: Mapped[str] = mapped_column(String(10), default="OUVERT")
    assigne_membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"), index=True)
    date_assignation: Mapped[datetime | None]
    echeance_premiere_reponse: Mapped[datetime]
    date_premiere_reponse: Mapped[datetime | None]
    echeance_resolution: Mapped[datetime]
    date_resolution: Mapped[datetime | None]
    date_fermeture: Mapped[datetime | None]
    nombre_reouvertures: Mapped[int] = mapped_column(default=0)
    resolution: Mapped[str | None] = mapped_column(Text)
    # Searched by the list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("numero", "sujet", "description")

    __table_args__ = (
        Index("ix_ticket_organisation_statut", "organisation_id", "statut", "created_at"),
        Index("ix_ticket_created", "created_at", "id"),
    )


class TicketMessage(IdMixin, Base):
    __tablename__ = "ticket_message"

    ticket_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ticket.id", ondelete="CASCADE"))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    auteur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    auteur_nom: Mapped[str] = mapped_column(String(254))
    auteur_membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"))
    # Written by the handling staff (not the requester): counts as the first response.
    par_equipe: Mapped[bool] = mapped_column(default=False)
    # Internal note: staff only, never shown to the requester.
    interne: Mapped[bool] = mapped_column(default=False)
    contenu: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_ticket_message_ticket", "ticket_id", "created_at"),)
