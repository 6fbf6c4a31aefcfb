"""The payment rows and their allocations (tables ``paiement``, ``paiement_allocation``): the one door to them.

The settlement workflow (paiements/encaissement/), the Wave checkout, the payments API and the undo requests all
reach the payments here; other areas' reports read them through paiements/rapport_repository.py."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import (
    Adhesion,
    Cotisation,
    Membre,
    Organisation,
    Paiement,
    PaiementAllocation,
)
from unionflow.models.paiement import MethodePaiement, StatutPaiement


@dataclass(frozen=True)
class PaiementFilters:
    membre_id: uuid.UUID | None = None
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    methode: str | None = None
    date_debut: date | None = None
    date_fin: date | None = None


@dataclass(frozen=True)
class Reservation:
    """A pending payment reserving one dues or adhesion: a member's declaration (cash, transfer, …) waiting for
    the treasury, or an open Wave session (``methode`` WAVE)."""

    paiement_id: uuid.UUID
    reference: str
    methode: str
    cible_id: uuid.UUID
    cible_reference: str

    @property
    def wave(self) -> bool:
        return self.methode == MethodePaiement.WAVE


def reservations_statement(membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID],
                           adhesion_ids: list[uuid.UUID]) -> Select[Any]:
    """Rows of ``Reservation``: the member's pending payments allocated to these dues or adhesions."""
    return (
        select(Paiement.id, func.coalesce(Paiement.reference_declaration, Paiement.numero_recu),
               Paiement.methode, func.coalesce(PaiementAllocation.cotisation_id, PaiementAllocation.adhesion_id),
               func.coalesce(Cotisation.numero_reference, Adhesion.numero_reference))
        .join(PaiementAllocation, PaiementAllocation.paiement_id == Paiement.id)
        .outerjoin(Cotisation, Cotisation.id == PaiementAllocation.cotisation_id)
        .outerjoin(Adhesion, Adhesion.id == PaiementAllocation.adhesion_id)
        .where(Paiement.membre_id == membre_id, Paiement.statut == StatutPaiement.EN_ATTENTE,
               or_(PaiementAllocation.cotisation_id.in_(cotisation_ids),
                   PaiementAllocation.adhesion_id.in_(adhesion_ids)))
        .order_by(Paiement.created_at, Paiement.id)
    )


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


class PaiementRepository(ScopedRepository[Paiement]):
    """Global roles: all; organisation staff: their organisations; anyone: their own payments."""

    model = Paiement
    personal = True

    async def get_by_numero(self, numero: str) -> Paiement | None:
        return (await self.session.execute(
            self.select().where(Paiement.numero_recu == numero))).scalar_one_or_none()

    async def search(self, f: PaiementFilters, params: PageParams,
                     membre_id: uuid.UUID | None = None) -> tuple[list[Paiement], int, bool]:
        stmt = self.select()
        if membre_id is not None:
            stmt = stmt.where(Paiement.membre_id == membre_id)
        if f.membre_id:
            stmt = stmt.where(Paiement.membre_id == f.membre_id)
        if f.organisation_id:
            stmt = stmt.where(Paiement.organisation_id == f.organisation_id)
        if f.statut:
            stmt = stmt.where(Paiement.statut == f.statut)
        if f.methode:
            stmt = stmt.where(Paiement.methode == f.methode)
        when = func.coalesce(Paiement.date_paiement, Paiement.created_at)
        if f.date_debut:
            stmt = stmt.where(when >= day_start(f.date_debut))
        if f.date_fin:
            stmt = stmt.where(when < day_start(f.date_fin + timedelta(days=1)))
        return await self.paginate(stmt.order_by(Paiement.created_at.desc(), Paiement.id), params)

    async def allocations(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[tuple[Any, ...]]]:
        """Allocations with the reference and label of what they pay, per payment."""
        if not paiement_ids:
            return {}
        stmt = (
            select(PaiementAllocation.paiement_id, PaiementAllocation.cotisation_id, PaiementAllocation.adhesion_id,
                   PaiementAllocation.montant,
                   func.coalesce(Cotisation.numero_reference, Adhesion.numero_reference),
                   Cotisation.libelle, Cotisation.annee, Cotisation.mois)
            .outerjoin(Cotisation, Cotisation.id == PaiementAllocation.cotisation_id)
            .outerjoin(Adhesion, Adhesion.id == PaiementAllocation.adhesion_id)
            .where(PaiementAllocation.paiement_id.in_(paiement_ids))
            .order_by(PaiementAllocation.paiement_id, PaiementAllocation.id)
        )
        result: dict[uuid.UUID, list[tuple[Any, ...]]] = {}
        for row in (await self.session.execute(stmt)).all():
            result.setdefault(row[0], []).append(tuple(row[1:]))
        return result

    async def encaisse(self, organisation_id: uuid.UUID, *, cotisations: bool) -> Decimal:
        """Collected by the organisation: confirmed allocations to dues (``cotisations``) or to adhesion fees."""
        column = PaiementAllocation.cotisation_id if cotisations else PaiementAllocation.adhesion_id
        collected = (await self.session.execute(
            select(func.coalesce(func.sum(PaiementAllocation.montant), 0))
            .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
            .where(Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.VALIDE,
                   column.is_not(None), self.scope()))).scalar_one()
        return Decimal(str(collected))

    async def numeros_recus(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
        if not paiement_ids:
            return {}
        rows = await self.session.execute(select(Paiement.id, Paiement.numero_recu)
                                          .where(Paiement.id.in_(paiement_ids)))
        return {row[0]: row[1] for row in rows}

    async def membre(self, membre_id: uuid.UUID) -> Membre | None:
        return await self.session.get(Membre, membre_id)

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        return await self.session.get(Organisation, organisation_id)

    async def target_owner(self, cotisation_id: uuid.UUID | None,
                           adhesion_id: uuid.UUID | None) -> tuple[uuid.UUID, uuid.UUID] | None:
        """(membre, organisation) of a dues or adhesion, to check who may pay it before locking anything."""
        if cotisation_id is not None:
            row = (await self.session.execute(select(Cotisation.membre_id, Cotisation.organisation_id)
                                              .where(Cotisation.id == cotisation_id))).first()
        else:
            row = (await self.session.execute(select(Adhesion.membre_id, Adhesion.organisation_id)
                                              .where(Adhesion.id == adhesion_id))).first()
        return (row[0], row[1]) if row else None

    async def pending_wave_overlapping(self, membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID],
                                       adhesion_ids: list[uuid.UUID]) -> list[uuid.UUID]:
        """Pending Wave payments of the member already reserving one of these dues or adhesions."""
        stmt = (
            select(PaiementAllocation.paiement_id).distinct()
            .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
            .where(Paiement.membre_id == membre_id, Paiement.statut == StatutPaiement.EN_ATTENTE,
                   Paiement.methode == MethodePaiement.WAVE,
                   or_(PaiementAllocation.cotisation_id.in_(cotisation_ids),
                       PaiementAllocation.adhesion_id.in_(adhesion_ids)))
        )
        return list((await self.session.execute(stmt)).scalars())

    async def reservations(self, membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID],
                           adhesion_ids: list[uuid.UUID]) -> list[Reservation]:
        """The member's pending payments (declarations and Wave sessions) reserving these dues or adhesions, with
        the reference the member was given and the reference of the target, oldest first."""
        if not cotisation_ids and not adhesion_ids:
            return []
        rows = await self.session.execute(reservations_statement(membre_id, cotisation_ids, adhesion_ids))
        return [Reservation(*row) for row in rows.all()]

    async def reserved_targets(self, paiement_id: uuid.UUID) -> list[Cotisation | Adhesion]:
        """The dues and adhesions a pending payment reserves."""
        cotisations = await self.session.execute(select(Cotisation).join(
            PaiementAllocation, PaiementAllocation.cotisation_id == Cotisation.id)
            .where(PaiementAllocation.paiement_id == paiement_id))
        adhesions = await self.session.execute(select(Adhesion).join(
            PaiementAllocation, PaiementAllocation.adhesion_id == Adhesion.id)
            .where(PaiementAllocation.paiement_id == paiement_id))
        return [*cotisations.scalars(), *adhesions.scalars()]


class PaiementSystemRepository(SystemRepository[Paiement]):
    """The settlement workflow's reads and locks (paiements/encaissement/workflow.py): the caller was checked first (the
    payment or its targets were loaded through a scoped repository), or it is a job or a signed webhook."""

    model = Paiement

    async def wave_directs(self, organisation_id: uuid.UUID, methodes: frozenset[str], *, references: set[str],
                           debut: datetime | None = None, fin: datetime | None = None) -> list[Paiement]:
        """Valid Wave money booked with its Wave transaction id (a transfer recorded at the counter, a confirmed
        declaration): those whose id is in ``references``, and those dated in [debut, fin). The reconciliation
        leaves out the ones a checkout session carries (matched by their session)."""
        conditions: list[ColumnElement[bool]] = []
        if references:
            conditions.append(Paiement.reference_externe.in_(references))
        if debut is not None and fin is not None:
            conditions.append(and_(Paiement.date_paiement >= debut, Paiement.date_paiement < fin))
        if not conditions:
            return []
        stmt = select(Paiement).where(Paiement.organisation_id == organisation_id, Paiement.methode.in_(methodes),
                                      Paiement.statut == StatutPaiement.VALIDE, Paiement.reference_externe.is_not(None),
                                      or_(*conditions)).order_by(Paiement.date_paiement, Paiement.id)
        return list((await self.session.execute(stmt)).scalars())

    async def allocations_of(self, paiement_id: uuid.UUID) -> list[PaiementAllocation]:
        return list((await self.session.execute(
            select(PaiementAllocation).where(PaiementAllocation.paiement_id == paiement_id)
            .order_by(PaiementAllocation.id))).scalars())

    async def cotisations_reservees(self, organisation_id: uuid.UUID) -> dict[uuid.UUID, tuple[uuid.UUID, str]]:
        """Dues of the organisation that a pending payment (a member's declaration, an open Wave session)
        reserves: dues id -> (payment id, method). What the treasury's cancellation leaves alone."""
        stmt = (select(PaiementAllocation.cotisation_id, Paiement.id, Paiement.methode)
                .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
                .where(Paiement.organisation_id == organisation_id,
                       Paiement.statut == StatutPaiement.EN_ATTENTE.value,
                       PaiementAllocation.cotisation_id.is_not(None))
                .order_by(Paiement.created_at, Paiement.id))
        reservees: dict[uuid.UUID, tuple[uuid.UUID, str]] = {}
        for cotisation_id, paiement_id, methode in (await self.session.execute(stmt)).all():
            reservees.setdefault(cotisation_id, (paiement_id, methode))
        return reservees

    async def par_code_paiement(self, code: str) -> tuple[Cotisation, str, str, str] | None:
        """The dues holding this payment code, with its member's first and last name and its organisation's name
        (paying by code: whoever knows the code, no account; one statement)."""
        row = (await self.session.execute(
            select(Cotisation, Membre.prenom, Membre.nom, Organisation.nom)
            .join(Membre, Membre.id == Cotisation.membre_id)
            .join(Organisation, Organisation.id == Cotisation.organisation_id)
            .where(Cotisation.code_paiement == code))).first()
        return None if row is None else (row[0], row[1], row[2], row[3])

    async def lock_cibles(self, cotisation_ids: list[uuid.UUID],
                          adhesion_ids: list[uuid.UUID]) -> dict[uuid.UUID, Cotisation | Adhesion]:
        """The dues and adhesions a payment settles, locked in id order (dues first) so that two payments of
        the same targets queue instead of deadlocking. A one-door exception: dues and adhesions belong to their
        areas, but the order of these locks is the payment's (docs/architecture.md, "Where money lives")."""
        found: dict[uuid.UUID, Cotisation | Adhesion] = {}
        # populate_existing: a row changed by the transaction we waited for on the lock is read afresh.
        if cotisation_ids:
            rows = await self.session.execute(
                select(Cotisation).where(Cotisation.id.in_(cotisation_ids)).order_by(Cotisation.id).with_for_update()
                .execution_options(populate_existing=True))
            found.update({c.id: c for c in rows.scalars()})
        if adhesion_ids:
            rows = await self.session.execute(
                select(Adhesion).where(Adhesion.id.in_(adhesion_ids)).order_by(Adhesion.id).with_for_update()
                .execution_options(populate_existing=True))
            found.update({a.id: a for a in rows.scalars()})
        return found

    async def recus_reglant(self, cible_ids: list[uuid.UUID], sauf: uuid.UUID) -> dict[uuid.UUID, list[str]]:
        """Receipt numbers of the confirmed payments (other than ``sauf``) allocated to these dues or adhesions:
        what settled them, named when money arrives for them a second time."""
        if not cible_ids:
            return {}
        cible = func.coalesce(PaiementAllocation.cotisation_id, PaiementAllocation.adhesion_id)
        stmt = (select(cible, Paiement.numero_recu)
                .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
                .where(cible.in_(cible_ids), Paiement.statut == StatutPaiement.VALIDE, Paiement.id != sauf)
                .order_by(Paiement.date_paiement, Paiement.numero_recu))
        found: dict[uuid.UUID, list[str]] = {}
        for cible_id, numero in (await self.session.execute(stmt)).all():
            if numero not in found.setdefault(cible_id, []):
                found[cible_id].append(numero)
        return found

    # --- what the monthly closing (clotures/) asks of the payments, after checking its permission ------------
    async def count_en_attente_depuis(self, organisation_id: uuid.UUID, avant: datetime) -> int:
        """Payments still waiting for the treasury (declared, or a Wave session never settled) since before
        ``avant``."""
        stmt = select(func.count()).select_from(Paiement).where(
            Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.EN_ATTENTE.value,
            Paiement.created_at < avant)
        return int((await self.session.execute(stmt)).scalar_one())

    async def count_wave_en_attente_avant(self, avant: datetime) -> int:
        """Wave payments of every organisation still pending since before ``avant`` (the monitoring's measure)."""
        stmt = select(func.count()).select_from(Paiement).where(
            Paiement.methode == MethodePaiement.WAVE, Paiement.statut == StatutPaiement.EN_ATTENTE,
            Paiement.created_at < avant)
        return int((await self.session.execute(stmt)).scalar_one())

    async def annules_ou_rembourses(self, organisation_id: uuid.UUID, debut: datetime,
                                    fin: datetime) -> list[Paiement]:
        """Payments cancelled or refunded between ``debut`` (inclusive) and ``fin`` (exclusive): their last
        change."""
        stmt = (select(Paiement)
                .where(Paiement.organisation_id == organisation_id,
                       Paiement.statut.in_([StatutPaiement.ANNULE.value, StatutPaiement.REMBOURSE.value]),
                       Paiement.updated_at >= debut, Paiement.updated_at < fin)
                .order_by(Paiement.updated_at, Paiement.numero_recu))
        return list((await self.session.execute(stmt)).scalars())
