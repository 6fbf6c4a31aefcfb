"""Integrations: machine clients (OAuth 2.0 client credentials) and outbound webhooks (docs/integrations.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class ClientApi(IdMixin, TimestampMixin, Base):
    """A partner system's credentials. The secret is stored as an argon2 hash only; the principal acts with
    ``roles`` in ``organisation_ids`` as if it held memberships there (core/auth.py)."""

    __tablename__ = "client_api"

    client_id: Mapped[str] = mapped_column(String(64), unique=True)
    nom: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(String(1000))
    secret_hash: Mapped[str] = mapped_column(String(255))
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    organisation_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    actif: Mapped[bool] = mapped_column(Boolean, default=True)
    cree_par: Mapped[str | None] = mapped_column(String(254))
    revoque_le: Mapped[datetime | None]
    revoque_par: Mapped[str | None] = mapped_column(String(254))
    derniere_utilisation: Mapped[datetime | None]


class AbonnementWebhook(IdMixin, TimestampMixin, Base):
    """An organisation's subscription: which events are POSTed to which URL, signed with ``secret``.
    The secret is kept in clear because signing needs it (like Stripe or GitHub webhook secrets)."""

    __tablename__ = "abonnement_webhook"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"),
                                                       index=True)
    url: Mapped[str] = mapped_column(String(2000))
    description: Mapped[str | None] = mapped_column(String(500))
    evenements: Mapped[list[str]] = mapped_column(JSON, default=list)
    secret: Mapped[str] = mapped_column(String(128))
    actif: Mapped[bool] = mapped_column(Boolean, default=True)
    echecs_consecutifs: Mapped[int] = mapped_column(Integer, default=0)
    desactive_le: Mapped[datetime | None]
    motif_desactivation: Mapped[str | None] = mapped_column(String(500))
    cree_par: Mapped[str | None] = mapped_column(String(254))


class StatutLivraison(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    LIVREE = "LIVREE"
    ECHOUEE = "ECHOUEE"


class LivraisonWebhook(IdMixin, TimestampMixin, Base):
    """Outbox row: one event for one subscription, written in the transaction of the change that caused it;
    the delivery job POSTs it and records each attempt."""

    __tablename__ = "livraison_webhook"

    abonnement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("abonnement_webhook.id", ondelete="CASCADE"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"),
                                                       index=True)
    evenement: Mapped[str] = mapped_column(String(60))
    # Same for every subscription and every replay of one event: receivers de-duplicate on it.
    evenement_id: Mapped[uuid.UUID]
    charge: Mapped[dict[str, Any]] = mapped_column(JSON)
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    tentatives: Mapped[int] = mapped_column(Integer, default=0)
    # [{date, codeHttp, erreur, dureeMs}] of every attempt, oldest first.
    historique: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    dernier_code_http: Mapped[int | None] = mapped_column(Integer)
    derniere_erreur: Mapped[str | None] = mapped_column(String(1000))
    prochaine_tentative: Mapped[datetime | None]
    verrouillee_jusqua: Mapped[datetime | None]
    date_livraison: Mapped[datetime | None]
    rejeu_de: Mapped[uuid.UUID | None]

    __table_args__ = (
        Index("ix_livraison_webhook_statut_prochaine", "statut", "prochaine_tentative"),
        Index("ix_livraison_webhook_abonnement_created", "abonnement_id", "created_at"),
    )
