"""Scheduler (leases and run history of periodic jobs) and password-reset tokens (docs/operations.md,
docs/identity.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow


class StatutExecution(StrEnum):
    EN_COURS = "EN_COURS"
    REUSSIE = "REUSSIE"
    ECHOUEE = "ECHOUEE"


class StatutTache(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    EN_COURS = "EN_COURS"
    TERMINEE = "TERMINEE"
    ECHOUEE = "ECHOUEE"


class TypeTache(StrEnum):
    GENERATION_COTISATIONS = "GENERATION_COTISATIONS"
    SAUVEGARDE = "SAUVEGARDE"
    EXPORT = "EXPORT"
    IMPORT_MEMBRES = "IMPORT_MEMBRES"


class PlanificationJob(Base):
    """One row per periodic job: when it is next due, and which host holds it while it runs. Claiming a run is
    one conditional UPDATE on this row, so among any number of schedulers exactly one wins each due slot."""

    __tablename__ = "planification_job"

    nom: Mapped[str] = mapped_column(String(60), primary_key=True)
    prochaine_execution: Mapped[datetime]
    verrouillee_jusqua: Mapped[datetime | None]
    verrouillee_par: Mapped[str | None] = mapped_column(String(200))


class ExecutionJob(IdMixin, Base):
    """One scheduled run of a job: start, end, outcome, counts, error."""

    __tablename__ = "execution_job"

    job: Mapped[str] = mapped_column(String(60))
    # PLANIFIE: a scheduler slot (the column leaves room for other triggers without a migration).
    declenchement: Mapped[str] = mapped_column(String(20))
    hote: Mapped[str] = mapped_column(String(200))
    statut: Mapped[str] = mapped_column(String(20))  # EN_COURS, REUSSIE, ECHOUEE
    date_debut: Mapped[datetime] = mapped_column(default=utcnow)
    date_fin: Mapped[datetime | None]
    duree_ms: Mapped[int | None]
    compteurs: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    message_erreur: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_execution_job_date_debut", "date_debut"),
        Index("ix_execution_job_job_date_debut", "job", "date_debut"),
    )


class JetonReinitialisation(IdMixin, Base):
    """A "mot de passe oublié" token: only its SHA-256 is stored; single use, expiring."""

    __tablename__ = "jeton_reinitialisation"

    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("utilisateur_local.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Tache(IdMixin, Base):
    """Long work turned into a background task (dues generation over a threshold): run by the scheduler
    (``unionflow worker`` or in-process), followed at ``GET /api/jobs/{id}`` by its creator."""

    __tablename__ = "tache"

    type: Mapped[str] = mapped_column(String(40))  # GENERATION_COTISATIONS
    statut: Mapped[str] = mapped_column(String(20))  # EN_ATTENTE, EN_COURS, TERMINEE, ECHOUEE
    progression: Mapped[int] = mapped_column(default=0)
    total: Mapped[int | None]
    traites: Mapped[int] = mapped_column(default=0)
    parametres: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    resultat: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    lien_resultat: Mapped[str | None] = mapped_column(String(300))
    message_erreur: Mapped[str | None] = mapped_column(Text)
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    cree_par: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"))
    date_creation: Mapped[datetime] = mapped_column(default=utcnow)
    date_debut: Mapped[datetime | None]
    date_fin: Mapped[datetime | None]
    verrouillee_jusqua: Mapped[datetime | None]
    verrouillee_par: Mapped[str | None] = mapped_column(String(200))

    __table_args__ = (Index("ix_tache_statut_date_creation", "statut", "date_creation"),)
