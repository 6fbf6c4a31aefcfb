"""Notifications outbox, message templates and members' preferences (docs/notifications.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class Canal(StrEnum):
    EMAIL = "EMAIL"
    SMS = "SMS"
    IN_APP = "IN_APP"


class StatutNotification(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    ENVOYEE = "ENVOYEE"
    ECHOUEE = "ECHOUEE"
    LUE = "LUE"


class TypeNotification(StrEnum):
    INFORMATION = "INFORMATION"
    INVITATION_EVENEMENT = "INVITATION_EVENEMENT"
    RAPPEL_COTISATION = "RAPPEL_COTISATION"
    RECU_PAIEMENT = "RECU_PAIEMENT"
    EVENEMENT_ANNULE = "EVENEMENT_ANNULE"
    INSCRIPTION_CONFIRMEE = "INSCRIPTION_CONFIRMEE"
    # docs/integrations.md: the requester learns the decision on their aid request; the bureau learns that a
    # decision waits for it; the organisation's administrators that a webhook subscription was disabled.
    DECISION_AIDE = "DECISION_AIDE"
    APPROBATION_EN_ATTENTE = "APPROBATION_EN_ATTENTE"
    WEBHOOK_DESACTIVE = "WEBHOOK_DESACTIVE"
    # Extension: the member learns every change of what he owes or was paid.
    DECLARATION_REJETEE = "DECLARATION_REJETEE"
    PAIEMENT_ANNULE = "PAIEMENT_ANNULE"
    PAIEMENT_REMBOURSE = "PAIEMENT_REMBOURSE"
    AIDE_VERSEE = "AIDE_VERSEE"
    # Money that arrived twice for the same dues became credit (to the member and the treasury).
    AVOIR_DOUBLE_PAIEMENT = "AVOIR_DOUBLE_PAIEMENT"


# Kinds a member cannot refuse: they concern the member's own obligations, payments or registrations
# (docs/notifications.md). Preferences still choose their channels.
OBLIGATOIRES = frozenset({TypeNotification.RAPPEL_COTISATION, TypeNotification.RECU_PAIEMENT,
                          TypeNotification.EVENEMENT_ANNULE, TypeNotification.INSCRIPTION_CONFIRMEE,
                          TypeNotification.DECISION_AIDE, TypeNotification.WEBHOOK_DESACTIVE,
                          TypeNotification.DECLARATION_REJETEE, TypeNotification.PAIEMENT_ANNULE,
                          TypeNotification.PAIEMENT_REMBOURSE, TypeNotification.AIDE_VERSEE,
                          TypeNotification.AVOIR_DOUBLE_PAIEMENT})


class Notification(IdMixin, TimestampMixin, Base):
    """One message to one member on one channel. The outbox row the delivery worker picks up while
    ``statut`` is EN_ATTENTE; IN_APP rows are delivered by being stored (ENVOYEE at creation)."""

    __tablename__ = "notification"

    # None for account e-mails (password reset) to an identity-provider account without a member record.
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"), index=True)
    type_notification: Mapped[str] = mapped_column(String(40))
    canal: Mapped[str] = mapped_column(String(10))
    # Address snapshot at creation (e-mail or E.164 number); None for IN_APP.
    adresse: Mapped[str | None] = mapped_column(String(254))
    sujet: Mapped[str] = mapped_column(String(200))
    corps: Mapped[str] = mapped_column(Text)
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    tentatives: Mapped[int] = mapped_column(Integer, default=0)
    derniere_erreur: Mapped[str | None] = mapped_column(String(1000))
    # Earliest time of the next delivery attempt (backoff); None = as soon as possible.
    prochaine_tentative: Mapped[datetime | None]
    # Lease of the worker that claimed the row; another worker may take it once it has passed.
    verrouillee_jusqua: Mapped[datetime | None]
    date_envoi: Mapped[datetime | None]
    date_lecture: Mapped[datetime | None]
    source_type: Mapped[str | None] = mapped_column(String(50))
    source_id: Mapped[uuid.UUID | None]
    code_modele: Mapped[str | None] = mapped_column(String(50))
    cree_par: Mapped[str | None] = mapped_column(String(254))
    # SMS: the gateway's id of the message, and its last delivery report (status as the gateway words it).
    reference_passerelle: Mapped[str | None] = mapped_column(String(100), index=True)
    accuse_statut: Mapped[str | None] = mapped_column(String(40))
    accuse_detail: Mapped[str | None] = mapped_column(String(200))
    accuse_le: Mapped[datetime | None]
    # SMS answering a message sent to a premium (on-demand) short code: the gateway's link id of that message
    # (Africa's Talking ``linkId``), sent back with the answer.
    lien_premium: Mapped[str | None] = mapped_column(String(100))

    __table_args__ = (
        Index("ix_notification_membre_created", "membre_id", "created_at"),
        Index("ix_notification_statut_prochaine", "statut", "prochaine_tentative"),
        Index("ix_notification_source", "source_type", "source_id"),
    )


class ModeleNotification(IdMixin, TimestampMixin, Base):
    """A reusable subject/body with ``{placeholders}``, global (organisation_id empty) or per organisation."""

    __tablename__ = "modele_notification"

    code: Mapped[str] = mapped_column(String(50))
    canal: Mapped[str] = mapped_column(String(10))
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"), index=True)
    # "GLOBAL" or the organisation id: NULLs never collide in a UNIQUE constraint, this column does.
    portee: Mapped[str] = mapped_column(String(36))
    libelle: Mapped[str | None] = mapped_column(String(200))
    sujet: Mapped[str] = mapped_column(String(200))
    corps: Mapped[str] = mapped_column(Text)
    actif: Mapped[bool] = mapped_column(Boolean, default=True)

    __table_args__ = (UniqueConstraint("code", "canal", "portee", name="uq_modele_notification_code_canal_portee"),)


class Langue(StrEnum):
    FR = "fr"
    EN = "en"
    WO = "wo"


class Theme(StrEnum):
    CLAIR = "CLAIR"
    SOMBRE = "SOMBRE"
    SYSTEME = "SYSTEME"


class PreferenceMembre(IdMixin, TimestampMixin, Base):
    """The connected member's settings; absent row = defaults."""

    __tablename__ = "preference_membre"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"), unique=True)
    langue: Mapped[str] = mapped_column(String(2), default="fr")
    theme: Mapped[str] = mapped_column(String(10), default="SYSTEME")
    # {type_notification: [canal, ...]}; a missing kind uses the default channel choice.
    canaux_par_type: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    refus_non_obligatoires: Mapped[bool] = mapped_column(Boolean, default=False)
