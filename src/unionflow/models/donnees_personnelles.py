"""Personal data (Loi n° 2008-12, docs/conformite.md): members' consents to the processing of sensitive data, the
versioned notices they were shown, and the log of staff reads of a member's file (docs/donnees-personnelles.md)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin, utcnow


class FinaliteConsentement(StrEnum):
    """What the member consents to: sensitive data (Loi 2008-12) processed by his organisation."""

    ADHESION_SYNDICALE = "ADHESION_SYNDICALE"  # trade-union membership
    SANTE_AIDE = "SANTE_AIDE"  # health data given in an aid request (type MALADIE)


class CanalConsentement(StrEnum):
    CONSOLE = "CONSOLE"
    API = "API"
    PAPIER = "PAPIER"  # a signed paper form, recorded by the secretariat
    USSD = "USSD"


class NoticeInformation(IdMixin, Base):
    """A text shown to members before they consent, one row per (purpose, version, text): from version 2 the
    text is rendered for the organisation it names as controller (donnees_personnelles/notices.py), so one
    version has a text per organisation identity. A consent points to the text as it was read (never edited)."""

    __tablename__ = "notice_information"

    finalite: Mapped[str] = mapped_column(String(30))
    version: Mapped[int]
    texte: Mapped[str] = mapped_column(Text)
    # SHA-256 (hex) of ``texte``: the unique key finds the row of a text already read without comparing texts.
    empreinte: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("finalite", "version", "empreinte",
                                       name="uq_notice_information_finalite_version_empreinte"),)


class Consentement(IdMixin, TimestampMixin, Base):
    """A member's consent to one purpose, given to one organisation. A withdrawal dates the row (who, when) and
    never erases it; consenting again is a new row: the rows are the history. At most one row in force (not
    withdrawn) per member, organisation and purpose."""

    __tablename__ = "consentement"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"))
    finalite: Mapped[str] = mapped_column(String(30))
    notice_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("notice_information.id"))
    notice_version: Mapped[int]
    canal: Mapped[str] = mapped_column(String(10))
    donne_le: Mapped[datetime]
    # Who collected it: the person key (core.auth.person_key) and the name shown to the member.
    recueilli_par: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    recueilli_par_nom: Mapped[str] = mapped_column(String(254))
    retire_le: Mapped[datetime | None]
    retire_par: Mapped[str | None] = mapped_column(String(PERSON_KEY_LENGTH))
    retire_par_nom: Mapped[str | None] = mapped_column(String(254))

    __table_args__ = (
        Index("ix_consentement_membre", "membre_id", "donne_le"),
        Index("uq_consentement_en_vigueur", "membre_id", "organisation_id", "finalite", unique=True,
              sqlite_where=text("retire_le IS NULL"), postgresql_where=text("retire_le IS NULL")),
    )


class AccesDossier(IdMixin, Base):
    """One read of a member's file by someone else (staff, administrator): who, with which roles, when, which
    screen or route, for which organisation. Written in the reading request's transaction; never changed."""

    __tablename__ = "acces_dossier"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    # The organisation the reader acted for (None: a union-wide administrator without an active organisation).
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id", ondelete="SET NULL"))
    lecteur: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    lecteur_nom: Mapped[str] = mapped_column(String(254))
    lecteur_roles: Mapped[str] = mapped_column(String(300))
    ecran: Mapped[str] = mapped_column(String(200))
    lu_le: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_acces_dossier_membre_date", "membre_id", "lu_le"),)


class OppositionTraitement(IdMixin, TimestampMixin, Base):
    """A member's opposition to one processing of the register (Loi 2008-12), in force from the approval
    of its OPPOSITION request (the four-eyes request is the decision; this row is its effect) until the member
    withdraws it: the withdrawal dates the row (who, when) and never erases it. Opposing again is a new row: the
    rows are the history. At most one row in force per member and processing; it applies in every organisation
    (the member objects to the processing, not to one bureau)."""

    __tablename__ = "opposition_traitement"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    # The organisation the request was filed in (the member's, where it was decided).
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"))
    # The code of the processing in the register (core/traitements.py, DeclarationTraitement.code).
    traitement: Mapped[str] = mapped_column(String(40))
    demande_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("demande_approbation.id", ondelete="CASCADE"))
    motif: Mapped[str] = mapped_column(String(1000))
    effective_le: Mapped[datetime]
    retiree_le: Mapped[datetime | None]
    # Who withdrew it: the person key (core.auth.person_key) and the name shown to the member.
    retiree_par: Mapped[str | None] = mapped_column(String(PERSON_KEY_LENGTH))
    retiree_par_nom: Mapped[str | None] = mapped_column(String(254))

    __table_args__ = (
        Index("ix_opposition_traitement_membre", "membre_id", "effective_le"),
        Index("uq_opposition_traitement_en_vigueur", "membre_id", "traitement", unique=True,
              sqlite_where=text("retiree_le IS NULL"), postgresql_where=text("retiree_le IS NULL")),
    )


class RecepisseTraitement(IdMixin, TimestampMixin, Base):
    """The récépissé the CDP gave an organisation for its declaration of one processing of the register (Loi 2008-12
    art. 18: « seule la réception du récépissé donne droit à la mise en œuvre d'un traitement »). One row per
    organisation and processing; a correction replaces the values (the audit trail keeps the former ones). No row:
    the processing is « non déclaré » for that organisation."""

    __tablename__ = "recepisse_traitement"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id", ondelete="CASCADE"))
    # The code of the processing in the register (core/traitements.py, DeclarationTraitement.code).
    traitement: Mapped[str] = mapped_column(String(40))
    numero_recepisse: Mapped[str] = mapped_column(String(100))
    date_recepisse: Mapped[date]
    date_declaration: Mapped[date | None]
    # Who recorded it (the name shown on the register; the audit line holds the person key).
    enregistre_par: Mapped[str] = mapped_column(String(254))

    __table_args__ = (UniqueConstraint("organisation_id", "traitement",
                                       name="uq_recepisse_traitement_organisation_traitement"),)
