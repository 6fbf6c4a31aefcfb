"""Aggregate queries behind the member account, the member dashboard and the organisation dashboard."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import and_, case, func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import (
    Adhesion,
    Cotisation,
    Membre,
    MembreOrganisation,
    MouvementAvoir,
    Organisation,
    Paiement,
    PaiementAllocation,
)
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.membre import StatutAppartenance
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir

ZERO = Decimal("0")
OPEN_DUES = (StatutCotisation.EN_ATTENTE, StatutCotisation.PARTIELLEMENT_PAYEE, StatutCotisation.EN_RETARD)


def dec(value: Any) -> Decimal:
    return Decimal(str(value or 0)).quantize(Decimal("0.01"))


class CompteRepository(SystemRepository[Cotisation]):
    """The member's account and the organisation's dashboard: unscoped figures, read after the service checked
    whose account or which organisation the caller may see. Reads other areas' tables for its aggregates (a
    one-door exception listed in docs/architecture.md, "Where money lives")."""

    model = Cotisation

    async def membre(self, membre_id: uuid.UUID) -> Membre | None:
        return await self.session.get(Membre, membre_id)

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        return await self.session.get(Organisation, organisation_id)

    async def memberships(self, membre_id: uuid.UUID) -> list[tuple[MembreOrganisation, Organisation]]:
        rows = await self.session.execute(
            select(MembreOrganisation, Organisation)
            .join(Organisation, Organisation.id == MembreOrganisation.organisation_id)
            .where(MembreOrganisation.membre_id == membre_id).order_by(Organisation.nom))
        return [(m, o) for m, o in rows.all()]

    async def open_dues(self, membre_id: uuid.UUID, organisation_id: uuid.UUID | None = None,
                        limit: int = 50, from_date: date | None = None) -> list[Cotisation]:
        stmt = select(Cotisation).where(Cotisation.membre_id == membre_id, Cotisation.statut.in_(OPEN_DUES))
        if organisation_id:
            stmt = stmt.where(Cotisation.organisation_id == organisation_id)
        if from_date:
            stmt = stmt.where(Cotisation.date_echeance >= from_date)
        stmt = stmt.order_by(Cotisation.date_echeance, Cotisation.id).limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def adhesions(self, membre_id: uuid.UUID, organisation_id: uuid.UUID | None = None) -> list[Adhesion]:
        stmt = select(Adhesion).where(Adhesion.membre_id == membre_id)
        if organisation_id:
            stmt = stmt.where(Adhesion.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(Adhesion.date_demande.desc(), Adhesion.id))).scalars())

    async def payment_totals(self, membre_id: uuid.UUID,
                             organisation_id: uuid.UUID | None = None) -> tuple[Decimal, Decimal, int]:
        """(total paid, credit, number of pending payments) — only confirmed payments count as money, less the
        credit paid back to the member; a donation or an event fee (``nature``, issue 20) pays no dues: not in the
        total paid."""
        valid = Paiement.statut == StatutPaiement.VALIDE
        stmt = select(
            func.coalesce(func.sum(case((valid & Paiement.nature.is_(None), Paiement.montant), else_=0)), 0),
            func.coalesce(func.sum(case((valid, Paiement.montant_non_affecte), else_=0)), 0),
            func.count().filter(Paiement.statut == StatutPaiement.EN_ATTENTE),
        ).where(Paiement.membre_id == membre_id)
        if organisation_id:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        row = (await self.session.execute(stmt)).one()
        rendu = select(func.coalesce(func.sum(MouvementAvoir.montant), 0)).where(
            MouvementAvoir.membre_id == membre_id, MouvementAvoir.type_mouvement == TypeMouvementAvoir.REMBOURSEMENT)
        if organisation_id:
            rendu = rendu.where(MouvementAvoir.organisation_id == organisation_id)
        return dec(row[0]) + dec((await self.session.execute(rendu)).scalar_one()), dec(row[1]), int(row[2])

    async def last_payments(self, membre_id: uuid.UUID, limit: int,
                            organisation_id: uuid.UUID | None = None) -> list[Paiement]:
        stmt = select(Paiement).where(Paiement.membre_id == membre_id)
        if organisation_id:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        stmt = stmt.order_by(Paiement.created_at.desc(), Paiement.id).limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    # ---- organisation ---------------------------------------------------------------------------------------

    async def active_members(self, organisation_id: uuid.UUID) -> int:
        return int((await self.session.execute(select(func.count()).where(
            MembreOrganisation.organisation_id == organisation_id,
            MembreOrganisation.statut == StatutAppartenance.ACTIF))).scalar_one())

    async def active_members_in(self, organisation_ids: list[uuid.UUID]) -> int:
        """Active memberships of several organisations (a federation's network)."""
        if not organisation_ids:
            return 0
        return int((await self.session.execute(select(func.count()).where(
            MembreOrganisation.organisation_id.in_(organisation_ids),
            MembreOrganisation.statut == StatutAppartenance.ACTIF))).scalar_one())

    async def collected(self, organisation_id: uuid.UUID, start: datetime, end: datetime) -> tuple[Decimal, Decimal]:
        """(dues, adhesion fees) collected by confirmed payments dated in [start, end)."""
        stmt = (
            select(
                func.coalesce(func.sum(case((PaiementAllocation.cotisation_id.is_not(None),
                                             PaiementAllocation.montant), else_=0)), 0),
                func.coalesce(func.sum(case((PaiementAllocation.adhesion_id.is_not(None),
                                             PaiementAllocation.montant), else_=0)), 0))
            .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
            .where(Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.VALIDE,
                   Paiement.date_paiement >= start, Paiement.date_paiement < end))
        row = (await self.session.execute(stmt)).one()
        return dec(row[0]), dec(row[1])

    async def organisation_dues(self, organisation_id: uuid.UUID, year: int, today: date) -> dict[str, Any]:
        reste = Cotisation.montant_du - Cotisation.montant_paye
        is_open = Cotisation.statut.in_(OPEN_DUES)
        overdue = and_(is_open, Cotisation.date_echeance < today)
        due_by_now = and_(Cotisation.statut != StatutCotisation.ANNULEE, Cotisation.date_echeance <= today,
                          func.extract("year", Cotisation.date_echeance) == year)
        stmt = select(
            func.coalesce(func.sum(case((due_by_now, Cotisation.montant_du), else_=0)), 0),
            func.coalesce(func.sum(case((due_by_now, Cotisation.montant_paye), else_=0)), 0),
            func.count().filter(overdue),
            func.coalesce(func.sum(case((overdue, reste), else_=0)), 0),
            func.count(func.distinct(case((overdue, Cotisation.membre_id)))),
        ).where(Cotisation.organisation_id == organisation_id)
        row = (await self.session.execute(stmt)).one()
        return {"du_echu": dec(row[0]), "paye_echu": dec(row[1]), "nombre_en_retard": int(row[2]),
                "montant_en_retard": dec(row[3]), "membres_en_retard": int(row[4])}

    async def pending_payments(self, organisation_id: uuid.UUID) -> int:
        return int((await self.session.execute(select(func.count()).where(
            Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.EN_ATTENTE))).scalar_one())
