"""Export statements. Each one is scoped with the visibility rule of the area that owns the rows, taken from
that area's repository, so an export never shows a row the area's own list would hide."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.adhesions.repository import AdhesionRepository
from unionflow.audit.repository import AuditFilters, AuditRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.core.auth import AuthContext
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import organisations_as
from unionflow.cotisations.repository import CotisationRepository, with_status
from unionflow.membres.repository import MEMBRE_READERS
from unionflow.models import (
    Adhesion,
    AuditLog,
    CompteComptable,
    Cotisation,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    Membre,
    MembreOrganisation,
    Organisation,
)
from unionflow.models.cotisation import StatutCotisation
from unionflow.paiements.rapport_repository import PaiementRapportRepository
from unionflow.paiements.repository import day_start


@dataclass(frozen=True)
class Periode:
    debut: date | None = None
    fin: date | None = None  # inclusive


@dataclass(frozen=True)
class MembreExportFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None


@dataclass(frozen=True)
class CotisationExportFilters:
    organisation_id: uuid.UUID | None = None
    annee: int | None = None
    mois: int | None = None
    statut: StatutCotisation | None = None


@dataclass(frozen=True)
class PaiementExportFilters:
    organisation_id: uuid.UUID | None = None
    methode: str | None = None
    statut: str | None = None
    periode: Periode = Periode()


@dataclass(frozen=True)
class AdhesionExportFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    periode: Periode = Periode()


@dataclass(frozen=True)
class EcritureExportFilters:
    organisation_id: uuid.UUID | None = None
    journal_id: uuid.UUID | None = None
    periode: Periode = Periode()


@dataclass(frozen=True)
class AuditExportFilters:
    periode: Periode = Periode()
    module: str | None = None
    severite: str | None = None


class ExportRepository(ScopedRepository[Organisation]):
    """Scoped (``ScopedRepository``): its own rows are the organisations the caller reads; each export statement
    takes the rule of the area that owns its rows (``_scope``). A read-only reporting exception to one door per
    table (docs/architecture.md): the joins stream in batches and are counted before they run."""

    model = Organisation
    auth: AuthContext

    def __init__(self, session: AsyncSession, auth: AuthContext, today: date) -> None:
        super().__init__(session, auth)
        self.today = today

    def scope(self) -> ColumnElement[bool]:
        return self.in_scope(Organisation.id)

    def _scope(self, repository: type[ScopedRepository[Any]]) -> ColumnElement[bool]:
        """The owning area's rule (its repository's ``scope()``), applied to this caller."""
        seen = repository.visibility(self.auth)
        return repository.scope_condition(seen.shape, seen.values)

    async def count(self, statement: Select[Any]) -> int:
        counted = select(func.count()).select_from(statement.order_by(None).subquery())
        return int((await self.session.execute(counted)).scalar_one())

    async def journal_visible(self, journal_id: uuid.UUID) -> bool:
        return await ComptabiliteRepository(self.session, self.auth).journal(journal_id) is not None

    def membres(self, f: MembreExportFilters) -> Select[Any]:
        """One row per membership of the register the caller keeps (membres area: register staff see the
        memberships of their organisations). Global callers also get members without any membership."""
        stmt = (
            select(Membre.numero_membre, Membre.nom, Membre.prenom, Membre.genre, Membre.date_naissance,
                   Membre.email, Membre.telephone, Membre.profession, Membre.adresse, Membre.ville, Membre.pays,
                   Membre.statut, Organisation.nom, MembreOrganisation.statut, MembreOrganisation.roles,
                   MembreOrganisation.date_debut, MembreOrganisation.date_fin, Membre.created_at)
            .select_from(Membre)
            .outerjoin(MembreOrganisation, MembreOrganisation.membre_id == Membre.id)
            .outerjoin(Organisation, Organisation.id == MembreOrganisation.organisation_id)
        )
        if not self.auth.is_global:
            orgs = organisations_as(self.auth, MEMBRE_READERS)
            stmt = stmt.where(MembreOrganisation.organisation_id.in_(orgs) if orgs else false())
        if f.organisation_id is not None:
            stmt = stmt.where(MembreOrganisation.organisation_id == f.organisation_id)
        if f.statut is not None:
            stmt = stmt.where(Membre.statut == f.statut)
        return stmt.order_by(Organisation.nom, Membre.nom, Membre.prenom, Membre.id, MembreOrganisation.id)

    def cotisations(self, f: CotisationExportFilters) -> Select[Any]:
        stmt = (
            select(Cotisation.numero_reference, Organisation.nom, Membre.numero_membre, Membre.nom, Membre.prenom,
                   Cotisation.type_cotisation, Cotisation.libelle, Cotisation.annee, Cotisation.mois,
                   Cotisation.date_echeance, Cotisation.montant_du, Cotisation.montant_paye, Cotisation.devise,
                   Cotisation.statut, Cotisation.date_paiement, Cotisation.methode_paiement,
                   Cotisation.reference_paiement)
            .join(Membre, Membre.id == Cotisation.membre_id)
            .join(Organisation, Organisation.id == Cotisation.organisation_id)
            .where(self._scope(CotisationRepository))
        )
        if f.organisation_id is not None:
            stmt = stmt.where(Cotisation.organisation_id == f.organisation_id)
        if f.annee is not None:
            stmt = stmt.where(Cotisation.annee == f.annee)
        if f.mois is not None:
            stmt = stmt.where(Cotisation.mois == f.mois)
        if f.statut is not None:
            stmt = stmt.where(with_status(f.statut, self.today))
        return stmt.order_by(Cotisation.date_echeance, Cotisation.numero_reference)

    def paiements(self, f: PaiementExportFilters) -> Select[Any]:
        return PaiementRapportRepository(self.session, self.auth).export(
            f.organisation_id, f.methode, f.statut, f.periode.debut, f.periode.fin)

    def adhesions(self, f: AdhesionExportFilters) -> Select[Any]:
        stmt = (
            select(Adhesion.numero_reference, Organisation.nom, Membre.numero_membre, Membre.nom, Membre.prenom,
                   Adhesion.date_demande, Adhesion.statut, Adhesion.frais_adhesion, Adhesion.montant_paye,
                   Adhesion.devise, Adhesion.date_approbation, Adhesion.approuve_par, Adhesion.date_rejet,
                   Adhesion.motif_rejet, Adhesion.date_paiement, Adhesion.methode_paiement)
            .join(Membre, Membre.id == Adhesion.membre_id)
            .join(Organisation, Organisation.id == Adhesion.organisation_id)
            .where(self._scope(AdhesionRepository))
        )
        if f.organisation_id is not None:
            stmt = stmt.where(Adhesion.organisation_id == f.organisation_id)
        if f.statut is not None:
            stmt = stmt.where(Adhesion.statut == f.statut)
        if f.periode.debut is not None:
            stmt = stmt.where(Adhesion.date_demande >= f.periode.debut)
        if f.periode.fin is not None:
            stmt = stmt.where(Adhesion.date_demande <= f.periode.fin)
        return stmt.order_by(Adhesion.date_demande, Adhesion.numero_reference)

    def _entries_scope(self) -> ColumnElement[bool]:
        # Comptabilité: entries (they name members and amounts) are for the bureau, never for plain members.
        if self.auth.is_global:
            return true()
        orgs = self.auth.staff_organisations
        return EcritureComptable.organisation_id.in_(orgs) if orgs else false()

    def ecritures(self, f: EcritureExportFilters) -> Select[Any]:
        """General-ledger lines: one row per debit or credit line, with its entry, journal and account."""
        stmt = (
            select(EcritureComptable.date_ecriture, JournalComptable.code, EcritureComptable.numero_piece,
                   EcritureComptable.piece_reference, EcritureComptable.libelle, CompteComptable.numero_compte,
                   CompteComptable.libelle, LigneEcriture.libelle, LigneEcriture.debit, LigneEcriture.credit,
                   Organisation.nom)
            .select_from(LigneEcriture)
            .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
            .join(JournalComptable, JournalComptable.id == EcritureComptable.journal_id)
            .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
            .join(Organisation, Organisation.id == EcritureComptable.organisation_id)
            .where(self._entries_scope())
        )
        if f.organisation_id is not None:
            stmt = stmt.where(EcritureComptable.organisation_id == f.organisation_id)
        if f.journal_id is not None:
            stmt = stmt.where(EcritureComptable.journal_id == f.journal_id)
        if f.periode.debut is not None:
            stmt = stmt.where(EcritureComptable.date_ecriture >= f.periode.debut)
        if f.periode.fin is not None:
            stmt = stmt.where(EcritureComptable.date_ecriture <= f.periode.fin)
        return stmt.order_by(EcritureComptable.date_ecriture, JournalComptable.code, EcritureComptable.numero_piece,
                             LigneEcriture.ordre, LigneEcriture.id)

    def audit(self, f: AuditExportFilters) -> Select[Any]:
        filters = AuditFilters(
            depuis=day_start(f.periode.debut) if f.periode.debut else None,
            avant=day_start(f.periode.fin + timedelta(days=1)) if f.periode.fin else None,
            module=f.module, severite=f.severite)
        columns = select(AuditLog.date_heure, AuditLog.utilisateur, AuditLog.role_actif, AuditLog.organisation_id,
                         AuditLog.module, AuditLog.type_action, AuditLog.severite, AuditLog.entite_type,
                         AuditLog.entite_id, AuditLog.description, AuditLog.ip_address, AuditLog.details)
        # The audit area's own filter and visibility (organisation administrators: their organisations' entries).
        stmt = AuditRepository(self.session, self.auth)._where(columns, filters)
        return stmt.order_by(AuditLog.date_heure, AuditLog.id)
