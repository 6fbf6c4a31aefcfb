"""Logs & Monitoring (system alerts and their thresholds) and Sauvegardes (backup catalogue and schedule)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, utcnow


class NiveauAlerte(StrEnum):
    INFO = "INFO"
    WARNING = "WARNING"
    CRITICAL = "CRITICAL"


class TypeSauvegarde(StrEnum):
    MANUELLE = "MANUELLE"
    AUTOMATIQUE = "AUTOMATIQUE"
    POINT_RESTAURATION = "POINT_RESTAURATION"


class StatutSauvegarde(StrEnum):
    EN_COURS = "EN_COURS"
    TERMINEE = "TERMINEE"
    ECHOUEE = "ECHOUEE"
    SUPPRIMEE = "SUPPRIMEE"


class Frequence(StrEnum):
    QUOTIDIENNE = "QUOTIDIENNE"
    HEBDOMADAIRE = "HEBDOMADAIRE"


class AlerteSysteme(IdMixin, Base):
    """One occurrence of a monitored condition, from first detection until the condition clears."""

    __tablename__ = "alerte_systeme"

    code: Mapped[str] = mapped_column(String(60))
    # Equal to ``code`` while the condition lasts, NULL once closed: the unique constraint makes
    # "one condition = one open alert" hold even if two evaluators race (NULLs never collide).
    cle_ouverte: Mapped[str | None] = mapped_column(String(60), unique=True)
    niveau: Mapped[str] = mapped_column(String(10))  # INFO, WARNING, CRITICAL
    titre: Mapped[str] = mapped_column(String(200))
    message: Mapped[str] = mapped_column(Text)
    valeur_mesuree: Mapped[float | None] = mapped_column(Float)
    seuil: Mapped[float | None] = mapped_column(Float)
    date_creation: Mapped[datetime] = mapped_column(default=utcnow)
    date_derniere_detection: Mapped[datetime] = mapped_column(default=utcnow)
    nombre_detections: Mapped[int] = mapped_column(Integer, default=1)
    resolue: Mapped[bool] = mapped_column(Boolean, default=False)
    date_resolution: Mapped[datetime | None]
    acquittee: Mapped[bool] = mapped_column(Boolean, default=False)
    acquittee_par: Mapped[str | None] = mapped_column(String(254))
    date_acquittement: Mapped[datetime | None]

    __table_args__ = (
        Index("ix_alerte_systeme_code_date", "code", "date_creation"),
        Index("ix_alerte_systeme_acquittee_resolue", "acquittee", "resolue"),
    )


class AlerteConfig(Base):
    """The single row (id = 1) of monitoring thresholds, created by the migration."""

    __tablename__ = "alerte_config"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seuil_latence_base_ms: Mapped[int] = mapped_column(Integer, default=500)
    seuil_espace_disque_libre_pourcent: Mapped[float] = mapped_column(Float, default=10.0)
    seuil_echecs_connexion_heure: Mapped[int] = mapped_column(Integer, default=20)
    seuil_erreurs_audit_heure: Mapped[int] = mapped_column(Integer, default=10)
    delai_paiement_wave_heures: Mapped[int] = mapped_column(Integer, default=2)
    seuil_paiements_wave_bloques: Mapped[int] = mapped_column(Integer, default=0)
    seuil_alertes_lcb_ft_non_traitees: Mapped[int] = mapped_column(Integer, default=0)
    intervalle_evaluation_secondes: Mapped[int] = mapped_column(Integer, default=60)
    # Shared by every worker and host: whoever moves it forward runs the evaluation.
    derniere_evaluation: Mapped[datetime | None]
    date_modification: Mapped[datetime | None]
    modifie_par: Mapped[str | None] = mapped_column(String(254))


class Sauvegarde(IdMixin, Base):
    """A database backup file under ``<data_dir>/backups``; the file itself is never served over HTTP."""

    __tablename__ = "sauvegarde"

    nom: Mapped[str] = mapped_column(String(150))
    description: Mapped[str | None] = mapped_column(Text)
    type: Mapped[str] = mapped_column(String(30))  # MANUELLE, AUTOMATIQUE, POINT_RESTAURATION
    statut: Mapped[str] = mapped_column(String(20))  # EN_COURS, TERMINEE, ECHOUEE, SUPPRIMEE
    moteur: Mapped[str] = mapped_column(String(20))  # sqlite, postgresql
    fichier: Mapped[str] = mapped_column(String(100))  # file name only, inside the backups directory
    taille_octets: Mapped[int | None] = mapped_column(BigInteger)
    sha256: Mapped[str | None] = mapped_column(String(64))
    revision_schema: Mapped[str | None] = mapped_column(String(500))
    message_erreur: Mapped[str | None] = mapped_column(Text)
    cree_par: Mapped[str] = mapped_column(String(254))
    date_creation: Mapped[datetime] = mapped_column(default=utcnow)
    date_fin: Mapped[datetime | None]
    date_suppression: Mapped[datetime | None]
    supprime_par: Mapped[str | None] = mapped_column(String(254))
    date_derniere_restauration: Mapped[datetime | None]

    __table_args__ = (Index("ix_sauvegarde_statut_date", "statut", "date_creation"),)


class SauvegardeConfig(Base):
    """The single row (id = 1) of the automatic-backup schedule, created by the migration."""

    __tablename__ = "sauvegarde_config"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    actif: Mapped[bool] = mapped_column(Boolean, default=False)
    frequence: Mapped[str] = mapped_column(String(20), default="QUOTIDIENNE")  # QUOTIDIENNE, HEBDOMADAIRE
    heure: Mapped[str] = mapped_column(String(5), default="02:00")  # HH:MM, UTC
    jour_semaine: Mapped[int] = mapped_column(Integer, default=7)  # ISO 1 = Monday … 7 = Sunday
    retention_jours: Mapped[int] = mapped_column(Integer, default=30)
    date_modification: Mapped[datetime | None]
    modifie_par: Mapped[str | None] = mapped_column(String(254))


