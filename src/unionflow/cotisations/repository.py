"""Dues queries, scoped to what the caller may see. Overdue is derived in SQL from the due date, so lists,
filters and statistics agree with responses even before the nightly job has marked the rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.repository import ScopedRepository, SystemRepository, pour_modifier
from unionflow.models import Cotisation, RappelCotisation
from unionflow.models.cotisation import StatutCotisation

S = StatutCotisation
OPEN = (S.EN_ATTENTE, S.PARTIELLEMENT_PAYEE)
UNPAID = (S.EN_ATTENTE, S.PARTIELLEMENT_PAYEE, S.EN_RETARD)


# A date, or a parameter bound at execution (cotisations/lectures.py).
Today = date | ColumnElement[Any]


def overdue(today: Today) -> ColumnElement[bool]:
    return or_(Cotisation.statut == S.EN_RETARD,
               and_(Cotisation.statut.in_(OPEN), Cotisation.date_echeance < today))


def with_status(statut: StatutCotisation, today: Today) -> ColumnElement[bool]:
    """Filter on the status a client sees (EN_RETARD derived)."""
    if statut == S.EN_RETARD:
        return overdue(today)
    if statut in OPEN:
        return and_(Cotisation.statut == statut, Cotisation.date_echeance >= today)
    return Cotisation.statut == statut


def statut_effectif(statut: str, echeance: date, today: date) -> str:
    if statut == S.EN_RETARD or (statut in OPEN and echeance < today):
        return S.EN_RETARD.value
    return statut


@dataclass(frozen=True)
class CotisationFilters:
    annee: int | None = None
    mois: int | None = None
    membre_id: uuid.UUID | None = None
    statut: StatutCotisation | None = None
    type_cotisation: str | None = None
    organisation_id: uuid.UUID | None = None


class CotisationRepository(ScopedRepository[Cotisation]):
    """Default rule, personal: a member sees their own dues (cotisations/lectures.py prebuilds the same scope)."""

    model = Cotisation
    personal = True
    auth: AuthContext

    def __init__(self, session: AsyncSession, auth: AuthContext, today: date) -> None:
        super().__init__(session, auth)
        self.today = today

    def _select(self) -> Select[Any]:
        return select(Cotisation).where(self.scope())

    async def get(self, cotisation_id: uuid.UUID, *, for_update: bool = False) -> Cotisation | None:
        stmt = self._select().where(Cotisation.id == cotisation_id)
        if for_update:
            stmt = pour_modifier(stmt).execution_options(populate_existing=True)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def by_reference(self, numero: str) -> Cotisation | None:
        return (await self.session.execute(
            self._select().where(Cotisation.numero_reference == numero))).scalar_one_or_none()

    def _filtered(self, filters: CotisationFilters, *, own_only: bool = False) -> Select[Any]:
        stmt = select(Cotisation).where(Cotisation.membre_id == self.auth.membre_id) if own_only else self._select()
        if filters.annee is not None:
            stmt = stmt.where(Cotisation.annee == filters.annee)
        if filters.mois is not None:
            stmt = stmt.where(Cotisation.mois == filters.mois)
        if filters.membre_id is not None:
            stmt = stmt.where(Cotisation.membre_id == filters.membre_id)
        if filters.statut is not None:
            stmt = stmt.where(with_status(filters.statut, self.today))
        if filters.type_cotisation:
            stmt = stmt.where(Cotisation.type_cotisation == filters.type_cotisation)
        if filters.organisation_id is not None:
            stmt = stmt.where(Cotisation.organisation_id == filters.organisation_id)
        return stmt

    async def search(self, filters: CotisationFilters, params: PageParams, *, own_only: bool = False,
                     by_due_date: bool = False) -> tuple[list[Cotisation], int, bool]:
        stmt = self._filtered(filters, own_only=own_only)
        order = ((Cotisation.date_echeance.desc(), Cotisation.id.desc()) if by_due_date
                 else (Cotisation.created_at.desc(), Cotisation.id.desc()))
        return await paginate(self.session, stmt.order_by(*order), params)

    async def overdue_page(self, params: PageParams) -> tuple[list[Cotisation], int, bool]:
        stmt = self._select().where(overdue(self.today)).order_by(Cotisation.date_echeance, Cotisation.id)
        return await paginate(self.session, stmt, params)

    async def unpaid_of_member(self, membre_id: uuid.UUID, *, visible_only: bool = True) -> list[Cotisation]:
        stmt = (self._select() if visible_only else select(Cotisation)).where(
            Cotisation.membre_id == membre_id, Cotisation.statut.in_(UNPAID)
        ).order_by(Cotisation.date_echeance, Cotisation.id)
        return list((await self.session.execute(stmt)).scalars())

    def aggregate_stmt(self, filters: CotisationFilters, *, own_only: bool = False) -> Select[Any]:
        """One row per (stored status, past due?) with counts and sums: a single GROUP BY, no row loaded."""
        echu = case((Cotisation.date_echeance < self.today, 1), else_=0).label("echu")
        stmt = self._filtered(filters, own_only=own_only).with_only_columns(
            Cotisation.statut, echu, func.count().label("nombre"),
            func.coalesce(func.sum(Cotisation.montant_du), 0).label("du"),
            func.coalesce(func.sum(Cotisation.montant_paye), 0).label("paye"),
            func.min(Cotisation.date_echeance).label("premiere_echeance"),
        ).group_by(Cotisation.statut, echu)
        return stmt

    def aggregate_by_type_stmt(self, filters: CotisationFilters) -> Select[Any]:
        live = Cotisation.statut != S.ANNULEE
        stmt = self._filtered(filters).with_only_columns(
            Cotisation.type_cotisation, func.count().label("nombre"),
            func.coalesce(func.sum(case((live, Cotisation.montant_du), else_=0)), 0).label("du"),
            func.coalesce(func.sum(Cotisation.montant_paye), 0).label("paye"),
        ).group_by(Cotisation.type_cotisation).order_by(Cotisation.type_cotisation)
        return stmt

    async def reminded_today(self, membre_ids: list[uuid.UUID]) -> dict[uuid.UUID, set[str]]:
        rows = await self.session.execute(
            select(RappelCotisation.membre_id, RappelCotisation.cotisation_ids)
            .where(RappelCotisation.membre_id.in_(membre_ids), RappelCotisation.date_rappel == self.today))
        done: dict[uuid.UUID, set[str]] = {}
        for membre_id, ids in rows.all():
            done.setdefault(membre_id, set()).update(ids or [])
        return done


class CotisationSystemRepository(SystemRepository[Cotisation]):
    """Dues written on the system's behalf: the overdue job, and the generation whose caller was permitted first
    (or its background task)."""

    model = Cotisation

    async def marquer_retards(self, today: date, limit: int) -> int:
        """Mark up to ``limit`` overdue dues EN_RETARD in one UPDATE (rows picked through the (statut, échéance)
        index); returns how many were marked. Rows locked by a payment in progress are skipped on PostgreSQL."""
        ids = select(Cotisation.id).where(Cotisation.statut.in_(OPEN), Cotisation.date_echeance < today).limit(limit)
        if self.session.get_bind().dialect.name == "postgresql":
            ids = ids.with_for_update(skip_locked=True)
        return await self.lignes_touchees(
            update(Cotisation).where(Cotisation.id.in_(ids.scalar_subquery()), Cotisation.statut.in_(OPEN))
            .values(statut=S.EN_RETARD.value, updated_at=datetime.now(UTC))
            .execution_options(synchronize_session=False))

    async def compter_retards(self, today: date) -> int:
        stmt = select(func.count()).select_from(Cotisation).where(Cotisation.statut.in_(OPEN),
                                                                  Cotisation.date_echeance < today)
        return int((await self.session.execute(stmt)).scalar_one())

    async def codes_pris(self, codes: list[str]) -> set[str]:
        """Which of these payment codes a dues already holds."""
        stmt = select(Cotisation.code_paiement).where(Cotisation.code_paiement.in_(codes))
        return {str(c) for c in (await self.session.execute(stmt)).scalars()}

    async def inserer_generees(self, rows: list[dict[str, Any]]) -> int:
        """Insert generated dues; the unique generation key makes a re-run (or a concurrent run) skip what
        already exists. Returns how many were created."""
        insert = pg_insert if self.session.get_bind().dialect.name == "postgresql" else sqlite_insert
        stmt = insert(Cotisation).values(rows).on_conflict_do_nothing(index_elements=["cle_generation"])
        return len((await self.session.execute(stmt.returning(Cotisation.id))).all())

    async def membres_redevables(self, membre_ids: list[uuid.UUID]) -> set[uuid.UUID]:
        """Those of ``membre_ids`` who still owe dues (neither paid nor cancelled): open money."""
        if not membre_ids:
            return set()
        stmt = select(Cotisation.membre_id).where(
            Cotisation.membre_id.in_(membre_ids),
            Cotisation.statut.notin_((StatutCotisation.PAYEE, StatutCotisation.ANNULEE))).distinct()
        return set((await self.session.execute(stmt)).scalars())


class AnnulationRepository(CotisationRepository):
    """Dues cancelled by the treasury: a selection locked row by row, or a generated batch in one
    UPDATE. Both are scoped: a dues the caller cannot see is not found."""

    async def lock_many(self, ids: list[uuid.UUID]) -> list[Cotisation]:
        stmt = (self._select().where(Cotisation.id.in_(ids)).order_by(Cotisation.id).with_for_update()
                .execution_options(populate_existing=True))
        return list((await self.session.execute(stmt)).scalars())

    def _lot(self, organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None
             ) -> ColumnElement[bool]:
        periode = Cotisation.mois.is_(None) if mois is None else Cotisation.mois == mois
        return and_(self.scope(), Cotisation.organisation_id == organisation_id,
                    Cotisation.type_cotisation == type_cotisation, Cotisation.annee == annee, periode,
                    Cotisation.cle_generation.is_not(None))

    async def lot_resume(self, organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None
                         ) -> tuple[int, int, list[str]]:
        """(dues in the batch, already cancelled, references of up to 20 that received money)."""
        where = self._lot(organisation_id, type_cotisation, annee, mois)
        nombre, annulees = (await self.session.execute(select(
            func.count(), func.count().filter(Cotisation.statut == S.ANNULEE)).where(where))).one()
        payees = (await self.session.execute(
            select(Cotisation.numero_reference).where(where, Cotisation.montant_paye > 0)
            .order_by(Cotisation.numero_reference).limit(20))).scalars()
        return int(nombre), int(annulees), list(payees)

    async def du_lot(self, organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None,
                     ids: list[uuid.UUID]) -> list[Cotisation]:
        """Those of ``ids`` that belong to the batch and are not cancelled, by reference."""
        if not ids:
            return []
        stmt = self._select().where(self._lot(organisation_id, type_cotisation, annee, mois),
                                    Cotisation.statut != S.ANNULEE, Cotisation.id.in_(ids))
        return list((await self.session.execute(stmt.order_by(Cotisation.numero_reference))).scalars())

    async def annuler_lot(self, organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None,
                          exclues: list[uuid.UUID] | None = None) -> list[uuid.UUID]:
        """Cancel the batch's dues still unpaid and not cancelled, but ``exclues`` (reserved by a pending payment);
        ``montant_paye = 0`` in the UPDATE itself so a payment committed meanwhile is never cancelled under the
        treasurer's feet. Returns their ids."""
        where = and_(self._lot(organisation_id, type_cotisation, annee, mois), Cotisation.statut != S.ANNULEE,
                     Cotisation.montant_paye == 0)
        if exclues:
            where = and_(where, Cotisation.id.not_in(exclues))
        result = await self.session.execute(
            update(Cotisation).where(where).values(statut=S.ANNULEE.value, updated_at=datetime.now(UTC))
            .returning(Cotisation.id).execution_options(synchronize_session=False))
        return list(result.scalars())


class SituationRepository(SystemRepository[Cotisation]):
    """The one aggregate behind what a member sees of his dues: the member dashboard, the
    compte adhérent and the dues summary read these figures and nothing else. Unscoped: callers pass the
    connected member's own id."""

    model = Cotisation

    async def situation(self, membre_id: uuid.UUID, today: date,
                        organisation_id: uuid.UUID | None = None) -> dict[str, Any]:
        live = Cotisation.statut != S.ANNULEE
        is_open = Cotisation.statut.in_(UNPAID)
        late = and_(is_open, Cotisation.date_echeance < today)
        reste = Cotisation.montant_du - Cotisation.montant_paye
        stmt = select(
            func.count().filter(live), func.count().filter(Cotisation.statut == S.PAYEE),
            func.count().filter(is_open), func.count().filter(late),
            func.coalesce(func.sum(case((live, Cotisation.montant_du), else_=0)), 0),
            func.coalesce(func.sum(case((live, Cotisation.montant_paye), else_=0)), 0),
            func.coalesce(func.sum(case((is_open, reste), else_=0)), 0),
            func.coalesce(func.sum(case((late, reste), else_=0)), 0),
            # The next unpaid due date from today: a past one is an arrear, not what comes next.
            func.min(case((and_(is_open, Cotisation.date_echeance >= today), Cotisation.date_echeance))),
        ).where(Cotisation.membre_id == membre_id)
        if organisation_id is not None:
            stmt = stmt.where(Cotisation.organisation_id == organisation_id)
        row = (await self.session.execute(stmt)).one()
        cent = Decimal("0.01")
        prochaine = row[8]
        if isinstance(prochaine, str):  # SQLite returns the aggregate of a CASE as text
            prochaine = date.fromisoformat(prochaine)
        return {"nombre_total": int(row[0]), "nombre_payees": int(row[1]), "nombre_a_payer": int(row[2]),
                "nombre_en_retard": int(row[3]), "montant_du": Decimal(str(row[4])).quantize(cent),
                "montant_paye": Decimal(str(row[5])).quantize(cent),
                "montant_restant": Decimal(str(row[6])).quantize(cent),
                "montant_en_retard": Decimal(str(row[7])).quantize(cent), "prochaine_echeance": prochaine}


class BilanCotisationsRepository(SystemRepository[Cotisation]):
    """An organisation's dues for its yearly report and inventory. Unscoped: the caller checked that the
    organisation's books are visible to the reader."""

    model = Cotisation

    async def de_l_annee(self, organisation_id: uuid.UUID, annee: int) -> tuple[int, Decimal, Decimal]:
        """Dues of year ``annee`` (cancelled ones left out): their number, the amount called and the amount paid
        so far."""
        stmt = select(func.count(), func.coalesce(func.sum(Cotisation.montant_du), 0),
                      func.coalesce(func.sum(Cotisation.montant_paye), 0)).where(
            Cotisation.organisation_id == organisation_id, Cotisation.annee == annee,
            Cotisation.statut != S.ANNULEE)
        row = (await self.session.execute(stmt)).one()
        return int(row[0]), Decimal(str(row[1])), Decimal(str(row[2]))

    async def impayes_par_membre(self, organisation_id: uuid.UUID, echues_au: date,
                                 payes_depuis: dict[uuid.UUID, Decimal]) -> list[tuple[uuid.UUID, int, Decimal]]:
        """Per member: the number of dues fallen due on or before ``echues_au`` that were not fully paid on that
        day, and what they still owed then — what they owe now, plus ``payes_depuis`` (per dues, what was paid
        after that day)."""
        ouvertes = and_(Cotisation.statut.in_(UNPAID), Cotisation.montant_paye < Cotisation.montant_du)
        if payes_depuis:
            ouvertes = or_(ouvertes, Cotisation.id.in_(list(payes_depuis)))
        stmt = select(Cotisation.id, Cotisation.membre_id, Cotisation.montant_du, Cotisation.montant_paye).where(
            Cotisation.organisation_id == organisation_id, Cotisation.date_echeance <= echues_au,
            Cotisation.statut != S.ANNULEE, ouvertes)
        par_membre: dict[uuid.UUID, tuple[int, Decimal]] = {}
        for cotisation_id, membre_id, du, paye in (await self.session.execute(stmt)).all():
            reste = Decimal(str(du)) - Decimal(str(paye)) + payes_depuis.get(cotisation_id, Decimal(0))
            if reste > 0:
                nombre, total = par_membre.get(membre_id, (0, Decimal(0)))
                par_membre[membre_id] = (nombre + 1, total + reste)
        return [(m, n, total) for m, (n, total) in par_membre.items()]
