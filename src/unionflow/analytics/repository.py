"""Aggregate queries of the indicators: every figure is a COUNT/SUM/AVG computed by the database over the
caller's organisations, grouped on a month key or a bucket; no row is loaded."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, false, func, literal, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.analytics.sql import year_month
from unionflow.core.auth import AuthContext
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import staff_sees
from unionflow.models import (
    Adhesion,
    Cotisation,
    Evenement,
    FeedbackEvenement,
    InscriptionEvenement,
    MembreOrganisation,
    Organisation,
)
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.evenement import StatutEvenement, StatutInscription, StatutModeration
from unionflow.paiements.rapport_repository import PaiementRapportRepository

UNPAID = (StatutCotisation.EN_ATTENTE, StatutCotisation.PARTIELLEMENT_PAYEE, StatutCotisation.EN_RETARD)
# Overdue buckets: (label, oldest due date offset in days, inclusive), newest first.
TRANCHES = (("0-30", 30), ("31-60", 60), ("61-90", 90))
TRANCHE_MAX = "90+"


def utc_day(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _sum(column: Any, where: ColumnElement[bool] | None = None) -> Any:
    value = case((where, column), else_=0) if where is not None else column
    return func.coalesce(func.sum(value), 0)


def _count_if(condition: ColumnElement[bool]) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


class AnalyticsRepository(ScopedRepository[Organisation]):
    """Scope: SUPER_ADMIN/ADMIN every organisation, or the one asked for; organisation staff the organisations
    they act for (``staff_organisations``), or the one of them asked for. Members' own rows do not count:
    indicators describe organisations. Scoped (``ScopedRepository``) on the organisations the caller reads;
    ``in_scope`` applies that rule to each aggregated table's organisation column (a read-only reporting
    exception to one door per table: docs/architecture.md)."""

    model = Organisation
    auth: AuthContext

    def __init__(self, session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID | None) -> None:
        super().__init__(session, auth)
        self.organisation_id = organisation_id

    async def organisation_visible(self) -> bool:
        if self.organisation_id is None:
            return True
        if not self.auth.is_global:
            return self.organisation_id in self.auth.staff_organisations
        return await self.session.get(Organisation, self.organisation_id) is not None

    def scope(self) -> ColumnElement[bool]:
        return self.in_scope(Organisation.id)

    def in_scope(self, column: Any) -> ColumnElement[bool]:
        if self.organisation_id is not None:
            return column == self.organisation_id if staff_sees(self.auth, self.organisation_id) else false()
        if self.auth.is_global:
            return true()
        orgs = self.auth.staff_organisations
        return column.in_(orgs) if orgs else false()

    async def memberships(self, annee: int) -> tuple[int, dict[str, int], dict[str, int]]:
        """(active memberships on 1 January, memberships started per month, memberships ended per month)."""
        debut, fin = date(annee, 1, 1), date(annee + 1, 1, 1)
        mo = MembreOrganisation
        scoped = self.in_scope(mo.organisation_id)
        effectif = select(func.count()).select_from(mo).where(
            scoped, mo.date_debut < debut, or_(mo.date_fin.is_(None), mo.date_fin >= debut))
        result: list[dict[str, int]] = []
        for column in (mo.date_debut, mo.date_fin):
            key = year_month(column).label("mois")
            stmt = (select(key, func.count()).select_from(mo)
                    .where(scoped, column >= debut, column < fin).group_by(key))
            result.append({str(m): int(n) for m, n in (await self.session.execute(stmt)).all()})
        return int((await self.session.execute(effectif)).scalar_one()), result[0], result[1]

    async def dues_by_month(self, annee: int, devise: str) -> list[Any]:
        """Dues falling due in the year (cancelled ones excluded), per month of their due date."""
        c = Cotisation
        key = year_month(c.date_echeance).label("mois")
        stmt = (select(key, func.count().label("nombre"), _sum(c.montant_du).label("du"),
                       _sum(c.montant_paye).label("paye"))
                .where(self.in_scope(c.organisation_id), c.statut != StatutCotisation.ANNULEE, c.devise == devise,
                       c.date_echeance >= date(annee, 1, 1), c.date_echeance < date(annee + 1, 1, 1))
                .group_by(key))
        return list((await self.session.execute(stmt)).all())

    async def payments_by_month_and_method(self, annee: int, devise: str) -> list[Any]:
        return await PaiementRapportRepository(self.session, self.auth).by_month_and_method(
            annee, devise, self.in_scope, year_month)

    async def adhesion_funnel(self, debut: date | None, fin: date | None, devise: str) -> Any:
        a = Adhesion
        stmt = select(
            func.count().label("soumises"),
            _count_if(a.statut == StatutAdhesion.EN_ATTENTE).label("en_attente"),
            func.count(a.date_approbation).label("approuvees"),
            _count_if(a.statut == StatutAdhesion.REJETEE).label("rejetees"),
            _count_if(a.statut == StatutAdhesion.PAYEE).label("payees"),
            _count_if(a.statut == StatutAdhesion.ANNULEE).label("annulees"),
            _sum(a.montant_paye, a.devise == devise).label("frais"),
        ).where(self.in_scope(a.organisation_id))
        if debut is not None:
            stmt = stmt.where(a.date_demande >= debut)
        if fin is not None:
            stmt = stmt.where(a.date_demande <= fin)
        return (await self.session.execute(stmt)).one()

    def _events(self, debut: date | None, fin: date | None) -> list[ColumnElement[bool]]:
        e = Evenement
        where = [self.in_scope(e.organisation_id)]
        if debut is not None:
            where.append(e.date_debut >= utc_day(debut))
        if fin is not None:
            where.append(e.date_debut < utc_day(fin + timedelta(days=1)))
        return where

    async def events(self, debut: date | None, fin: date | None) -> tuple[Any, Any, Any]:
        e, i, f = Evenement, InscriptionEvenement, FeedbackEvenement
        live = e.statut != StatutEvenement.ANNULE
        where = self._events(debut, fin)
        totals = select(
            _count_if(live).label("evenements"), _count_if(e.statut == StatutEvenement.ANNULE).label("annules"),
            _sum(e.capacite_max, and_(live, e.capacite_max.is_not(None))).label("capacite"),
        ).where(*where)
        confirmed = i.statut == StatutInscription.CONFIRMEE
        registrations = select(
            _count_if(confirmed).label("confirmes"),
            _count_if(and_(confirmed, e.capacite_max.is_not(None))).label("sur_capacite"),
            _count_if(i.statut == StatutInscription.EN_ATTENTE).label("attente"),
        ).select_from(i).join(e, e.id == i.evenement_id).where(*where, live)
        feedback = (select(func.avg(f.note).label("moyenne"), func.count(f.id).label("avis"))
                    .select_from(f).join(e, e.id == f.evenement_id)
                    .where(*where, live, f.statut_moderation == StatutModeration.PUBLIE))
        return ((await self.session.execute(totals)).one(), (await self.session.execute(registrations)).one(),
                (await self.session.execute(feedback)).one())

    async def overdue_buckets(self, today: date, devise: str) -> list[Any]:
        """Unpaid dues past their due date, by age; the bucket is decided by comparing the due date with fixed
        boundary dates, so no date arithmetic is needed in SQL."""
        c = Cotisation
        bucket = case(*[(c.date_echeance >= today - timedelta(days=days), literal(label))
                        for label, days in TRANCHES], else_=literal(TRANCHE_MAX)).label("tranche")
        stmt = (select(bucket, func.count().label("nombre"), func.count(func.distinct(c.membre_id)).label("membres"),
                       _sum(c.montant_du - c.montant_paye).label("reste"))
                .where(self.in_scope(c.organisation_id), c.statut.in_(UNPAID), c.devise == devise,
                       c.date_echeance < today)
                .group_by(bucket))
        return list((await self.session.execute(stmt)).all())

    async def overdue_totals(self, today: date, devise: str) -> Any:
        c = Cotisation
        stmt = select(func.count().label("nombre"), func.count(func.distinct(c.membre_id)).label("membres"),
                      _sum(c.montant_du - c.montant_paye).label("reste")).where(
            self.in_scope(c.organisation_id), c.statut.in_(UNPAID), c.devise == devise, c.date_echeance < today)
        return (await self.session.execute(stmt)).one()
