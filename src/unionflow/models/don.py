"""The register of donations and bequests (registre des dons et legs), sealed by a hash chain, and the earmarked
funds (fonds dédiés) a donation given for a purpose feeds."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, Index, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, utcnow


class TypeDonateur(StrEnum):
    MEMBRE = "MEMBRE"  # a member of the organisation (membre_id)
    PERSONNE_PHYSIQUE = "PERSONNE_PHYSIQUE"  # name, phone and/or identity document
    PERSONNE_MORALE = "PERSONNE_MORALE"  # name and registration numbers (RCCM, NINEA)
    ANONYME = "ANONYME"  # allowed below the LCB-FT single-operation threshold only (docs/decisions.md)


class FormeDon(StrEnum):
    ESPECES = "ESPECES"
    CHEQUE = "CHEQUE"
    VIREMENT = "VIREMENT"
    MOBILE_MONEY = "MOBILE_MONEY"
    NATURE = "NATURE"  # goods or services, recorded at their valuation
    AUTRE = "AUTRE"  # money by card or another means the counter records as AUTRE


class LigneRegistreDon(IdMixin, Base):
    """One donation. Never updated: ``hash`` = SHA-256(previous line's hash + the line's canonical content)
    (dons/scellement.py), ``numero`` gap-free per organisation; a changed or removed line breaks the chain."""

    __tablename__ = "ligne_registre_don"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    numero: Mapped[int]
    date_don: Mapped[datetime]
    type_donateur: Mapped[str] = mapped_column(String(20))
    donateur_nom: Mapped[str | None] = mapped_column(String(200))
    donateur_telephone: Mapped[str | None] = mapped_column(String(30))
    donateur_piece_identite: Mapped[str | None] = mapped_column(String(60))
    donateur_rccm: Mapped[str | None] = mapped_column(String(60))
    donateur_ninea: Mapped[str | None] = mapped_column(String(30))
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"))
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    forme: Mapped[str] = mapped_column(String(20))
    description_nature: Mapped[str | None] = mapped_column(Text)
    base_evaluation: Mapped[str | None] = mapped_column(String(500))
    affectation: Mapped[str | None] = mapped_column(String(300))
    fonds_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("fonds_dedie.id"))
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"))
    # The receipt number (money) or the entry's piece number / the four-eyes request (in kind).
    reference: Mapped[str] = mapped_column(String(100))
    seuil_lcbft_atteint: Mapped[bool] = mapped_column(Boolean, default=False)
    enregistre_par: Mapped[str] = mapped_column(String(254))
    hash_precedent: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("organisation_id", "numero", name="uq_ligne_registre_don_org_numero"),
                      Index("ix_ligne_registre_don_org_date", "organisation_id", "date_don"))


class TypeMouvementFonds(StrEnum):
    RECU = "RECU"  # a donation (register line) or a subsidy received for the fund's purpose
    EMPLOI = "EMPLOI"  # a use: an expense or a payout spent on the purpose


class FondsDedie(IdMixin, Base):
    """Money received for a stated purpose, to be spent on it; what is unused at year end is carried forward."""

    __tablename__ = "fonds_dedie"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    objet: Mapped[str] = mapped_column(String(300))
    donateur: Mapped[str | None] = mapped_column(String(200))
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    cree_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("organisation_id", "objet", name="uq_fonds_dedie_org_objet"),)


class MouvementFondsDedie(IdMixin, Base):
    """What fed a fund or was spent from it, each with the document it stands on (receipt, entry, payout)."""

    __tablename__ = "mouvement_fonds_dedie"

    fonds_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fonds_dedie.id"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    type_mouvement: Mapped[str] = mapped_column(String(10))
    date_mouvement: Mapped[datetime]
    montant: Mapped[Decimal]
    libelle: Mapped[str] = mapped_column(String(300))
    reference: Mapped[str] = mapped_column(String(100))
    ligne_don_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ligne_registre_don.id"))
    enregistre_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_mouvement_fonds_dedie_fonds_date", "fonds_id", "date_mouvement"),)


class StatutContribution(StrEnum):
    ENREGISTREE = "ENREGISTREE"
    ANNULEE = "ANNULEE"  # a line entered by mistake: kept, with who cancelled it, when and why


class ContributionBenevole(IdMixin, Base):
    """Volunteer time a member gave the organisation (bénévolat), valued at an hourly rate the organisation
    chooses: a voluntary contribution in kind, shown off the balance sheet in the SYCEBNL notes, never booked."""

    __tablename__ = "contribution_benevole"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    date_contribution: Mapped[date]
    heures: Mapped[Decimal] = mapped_column(Numeric(8, 2, asdecimal=True))
    taux_horaire: Mapped[Decimal]
    # heures × taux_horaire, rounded to the franc: stored, so the notes never recompute a past year.
    valeur: Mapped[Decimal]
    activite: Mapped[str] = mapped_column(String(300))
    statut: Mapped[str] = mapped_column(String(20), default=StatutContribution.ENREGISTREE.value)
    enregistre_par: Mapped[str] = mapped_column(String(254))
    annule_par: Mapped[str | None] = mapped_column(String(254))
    motif_annulation: Mapped[str | None] = mapped_column(String(500))
    date_annulation: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_contribution_benevole_org_date", "organisation_id", "date_contribution"),)
