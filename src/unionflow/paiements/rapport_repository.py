"""Figures over the money tables for other areas' reports: the member's account and the dashboards (compte), the
indicators (analytics), the exports (export). Those areas sit above paiements and read payments and credit only
through these functions, so that the money tables keep one door (docs/architecture.md, "Where money lives")."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, case, func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import Membre, MouvementAvoir, Organisation, Paiement
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir
from unionflow.paiements.repository import PaiementRepository, Reservation, day_start, reservations_statement


def _dec(value: Any) -> Decimal:
    return Decimal(str(value or 0)).quantize(Decimal("0.01"))


class PaiementRapportRepository(PaiementRepository):
    """Reads for the caller's reports, on the payments' own visibility rule (export) or on the organisations the
    caller's report covers (analytics, which passes its rule)."""

    def export(self, organisation_id: uuid.UUID | None, methode: str | None, statut: str | None,
               debut: date | None, fin: date | None) -> Select[Any]:
        """The payments export's statement (streamed in batches by export/formats.py), with the payer's and the
        organisation's names joined; ``fin`` is inclusive."""
        when = func.coalesce(Paiement.date_paiement, Paiement.created_at)
        stmt = (
            select(Paiement.numero_recu, when, Organisation.nom, Membre.numero_membre, Membre.nom, Membre.prenom,
                   Paiement.methode, Paiement.statut, Paiement.montant, Paiement.montant_non_affecte,
                   Paiement.devise, Paiement.reference_externe, Paiement.enregistre_par, Paiement.commentaire)
            .join(Membre, Membre.id == Paiement.membre_id)
            .join(Organisation, Organisation.id == Paiement.organisation_id)
            .where(self.scope())
        )
        if organisation_id is not None:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        if methode is not None:
            stmt = stmt.where(Paiement.methode == methode)
        if statut is not None:
            stmt = stmt.where(Paiement.statut == statut)
        if debut is not None:
            stmt = stmt.where(when >= day_start(debut))
        if fin is not None:
            stmt = stmt.where(when < day_start(fin + timedelta(days=1)))
        return stmt.order_by(when, Paiement.numero_recu)

    async def by_month_and_method(self, annee: int, devise: str,
                                  in_scope: Callable[[Any], ColumnElement[bool]],
                                  mois: Callable[[Any], Any]) -> list[Any]:
        """Confirmed payments of ``annee`` in ``devise`` per month and method (``nombre``, ``montant``): the
        report's organisations (``in_scope`` on the organisation column) and its month key (``mois`` of a date)."""
        p = Paiement
        key = mois(p.date_paiement).label("mois")
        start, end = day_start(date(annee, 1, 1)), day_start(date(annee + 1, 1, 1))
        stmt = (select(key, p.methode, func.count().label("nombre"),
                       func.coalesce(func.sum(p.montant), 0).label("montant"))
                .where(in_scope(p.organisation_id), p.statut == StatutPaiement.VALIDE, p.devise == devise,
                       p.date_paiement >= start, p.date_paiement < end)
                .group_by(key, p.methode))
        return list((await self.session.execute(stmt)).all())


class PaiementRapportSystemRepository(SystemRepository[Paiement]):
    """Unscoped figures, read after the caller's service checked whose account or which organisation it may see
    (the member's account, the organisation's dashboard)."""

    model = Paiement

    async def payment_totals(self, membre_id: uuid.UUID,
                             organisation_id: uuid.UUID | None = None) -> tuple[Decimal, Decimal, int]:
        """(total paid, credit, number of pending payments) — only confirmed payments count as money, less the
        credit paid back to the member; a donation or an event fee (``nature``) pays no dues: not in the total
        paid."""
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
        return _dec(row[0]) + _dec((await self.session.execute(rendu)).scalar_one()), _dec(row[1]), int(row[2])

    async def recus(self, membre_id: uuid.UUID, debut: datetime, fin: datetime,
                    organisation_id: uuid.UUID | None) -> list[Paiement]:
        """The member's money received in [debut, fin) for his dues and adhesion (valid today; a donation or an
        event fee is not on his account)."""
        stmt = select(Paiement).where(Paiement.membre_id == membre_id, Paiement.statut == StatutPaiement.VALIDE,
                                      Paiement.nature.is_(None), Paiement.date_paiement >= debut,
                                      Paiement.date_paiement < fin)
        if organisation_id is not None:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(Paiement.date_paiement, Paiement.id))).scalars())

    async def reservations(self, membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID]) -> dict[uuid.UUID, Reservation]:
        """The pending payment (declaration or Wave session) reserving each of these dues of the member, if any:
        what the member's account shows instead of offering to pay them again."""
        if not cotisation_ids:
            return {}
        rows = await self.session.execute(reservations_statement(membre_id, cotisation_ids, []))
        found: dict[uuid.UUID, Reservation] = {}
        for row in rows.all():
            reservation = Reservation(*row)
            found.setdefault(reservation.cible_id, reservation)
        return found

    async def last_payments(self, membre_id: uuid.UUID, limit: int,
                            organisation_id: uuid.UUID | None = None) -> list[Paiement]:
        stmt = select(Paiement).where(Paiement.membre_id == membre_id)
        if organisation_id:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        stmt = stmt.order_by(Paiement.created_at.desc(), Paiement.id).limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def pending_payments(self, organisation_id: uuid.UUID) -> int:
        return int((await self.session.execute(select(func.count()).where(
            Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.EN_ATTENTE))).scalar_one())
