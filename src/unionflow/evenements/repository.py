from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, case, func, literal, or_, select, true, update

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contient
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.core.visibility import EVERY, SCOPE_ORGANISATIONS, Shape, Visibility, scope_param
from unionflow.models import (
    Evenement,
    FeedbackEvenement,
    InscriptionEvenement,
    Membre,
    NotificationEvenement,
)
from unionflow.models.evenement import StatutEvenement, StatutInscription, StatutModeration, Visibilite

SORT_COLUMNS = {
    "dateDebut": Evenement.date_debut,
    "dateFin": Evenement.date_fin,
    "titre": Evenement.titre,
    "createdAt": Evenement.created_at,
}


def effective_status(now: datetime) -> ColumnElement[str]:
    """EN_COURS and TERMINE follow from the clock, so no scheduler has to flip rows at the right minute."""
    return case(
        (Evenement.statut == StatutEvenement.ANNULE, literal("ANNULE")),
        (Evenement.date_fin <= now, literal("TERMINE")),
        (Evenement.date_debut <= now, literal("EN_COURS")),
        else_=Evenement.statut,
    )


def active(now: datetime) -> ColumnElement[bool]:
    return (Evenement.statut != StatutEvenement.ANNULE) & (Evenement.date_fin > now)


@dataclass(frozen=True)
class EvenementFilters:
    q: str | None = None
    type_evenement: str | None = None
    only_active: bool = False
    upcoming: bool = False
    public_only: bool = False


@dataclass(frozen=True)
class Counts:
    confirmees: int = 0
    en_attente: int = 0


class EvenementRepository(ScopedRepository[Evenement]):
    """PUBLIC events: every authenticated caller (and ``auth=None``: the public agenda); MEMBRES events: members
    and staff of the organiser. ``get(for_update=True)`` serialises registrations of one event: capacity is
    counted and filled under this lock."""

    model = Evenement

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is not None and auth.is_global:
            return EVERY
        orgs = (auth.member_organisations | auth.staff_organisations) if auth is not None else frozenset()
        return Visibility(Shape(organisations=bool(orgs)), {SCOPE_ORGANISATIONS: sorted(orgs)})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        if shape.every:
            return true()
        public = Evenement.visibilite == Visibilite.PUBLIC
        if not shape.organisations:
            return public
        return or_(public, Evenement.organisation_id.in_(scope_param(SCOPE_ORGANISATIONS, values, expanding=True)))

    async def search(self, filters: EvenementFilters, params: PageParams, now: datetime,
                     sort: str = "dateDebut", direction: str = "asc") -> tuple[list[Evenement], int, bool]:
        stmt = self.select()
        if filters.public_only:
            stmt = stmt.where(Evenement.visibilite == Visibilite.PUBLIC)
        if filters.only_active or filters.upcoming:
            stmt = stmt.where(active(now))
        if filters.upcoming:
            stmt = stmt.where(Evenement.date_debut > now)
        if filters.type_evenement:
            stmt = stmt.where(Evenement.type_evenement == filters.type_evenement)
        if filters.q:
            stmt = stmt.where(contient(Evenement.recherche, filters.q))
        column = SORT_COLUMNS[sort]
        order = column.desc() if direction == "desc" else column.asc()
        tie = Evenement.id.desc() if direction == "desc" else Evenement.id.asc()
        return await self.paginate(stmt.order_by(order, tie), params)

    async def ping(self) -> None:
        """Raises when the database does not answer (connectivity check)."""
        await self.session.execute(select(literal(1)))

    async def count(self) -> int:
        stmt = select(func.count()).select_from(Evenement).where(self.scope())
        return int((await self.session.execute(stmt)).scalar_one())

    async def counts(self, ids: list[uuid.UUID]) -> dict[uuid.UUID, Counts]:
        if not ids:
            return {}
        stmt = (select(InscriptionEvenement.evenement_id, InscriptionEvenement.statut, func.count())
                .where(InscriptionEvenement.evenement_id.in_(ids),
                       InscriptionEvenement.statut != StatutInscription.ANNULEE)
                .group_by(InscriptionEvenement.evenement_id, InscriptionEvenement.statut))
        raw: dict[uuid.UUID, dict[str, int]] = {}
        for evt_id, statut, n in (await self.session.execute(stmt)).all():
            raw.setdefault(evt_id, {})[statut] = int(n)
        return {k: Counts(v.get("CONFIRMEE", 0), v.get("EN_ATTENTE", 0)) for k, v in raw.items()}

    def add(self, row: Any) -> None:
        self.session.add(row)

    # Statistics over the events the caller organises (staff) or all (ADMIN).
    def _managed(self) -> ColumnElement[bool]:
        assert self.auth is not None
        if self.auth.is_global:
            return true()
        return Evenement.organisation_id.in_(self.auth.staff_organisations)

    async def stats_by(self, column: Any) -> dict[str, int]:
        stmt = select(column, func.count()).select_from(Evenement).where(self._managed()).group_by(column)
        return {str(k): int(n) for k, n in (await self.session.execute(stmt)).all()}

    async def stats_registrations(self) -> dict[str, int]:
        stmt = (select(InscriptionEvenement.statut, func.count())
                .join(Evenement, Evenement.id == InscriptionEvenement.evenement_id)
                .where(self._managed()).group_by(InscriptionEvenement.statut))
        return {str(k): int(n) for k, n in (await self.session.execute(stmt)).all()}

    async def stats_fill(self) -> tuple[int, int]:
        """(total capacity, confirmed registrations) over non-cancelled events with a capacity."""
        confirmed = (select(func.count()).where(InscriptionEvenement.evenement_id == Evenement.id,
                                                InscriptionEvenement.statut == StatutInscription.CONFIRMEE)
                     .correlate(Evenement).scalar_subquery())
        stmt = (select(func.coalesce(func.sum(Evenement.capacite_max), 0), func.coalesce(func.sum(confirmed), 0))
                .where(self._managed(), Evenement.capacite_max.is_not(None),
                       Evenement.statut != StatutEvenement.ANNULE))
        capacity, filled = (await self.session.execute(stmt)).one()
        return int(capacity), int(filled)

    async def stats_feedback(self) -> tuple[float | None, int]:
        stmt = (select(func.avg(FeedbackEvenement.note), func.count(FeedbackEvenement.id))
                .join(Evenement, Evenement.id == FeedbackEvenement.evenement_id)
                .where(self._managed(), FeedbackEvenement.statut_moderation == StatutModeration.PUBLIE))
        avg, n = (await self.session.execute(stmt)).one()
        return (float(avg) if avg is not None else None), int(n)


class InscriptionRepository(SystemRepository[InscriptionEvenement]):
    """Registrations of an event the service already loaded through ``EvenementRepository`` (visible) and asked
    its permission for: unscoped below that check."""

    model = InscriptionEvenement

    async def active_of(self, evenement_id: uuid.UUID, membre_id: uuid.UUID) -> InscriptionEvenement | None:
        stmt = select(InscriptionEvenement).where(InscriptionEvenement.evenement_id == evenement_id,
                                                  InscriptionEvenement.membre_id == membre_id,
                                                  InscriptionEvenement.statut != StatutInscription.ANNULEE)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def count_confirmed(self, evenement_id: uuid.UUID) -> int:
        stmt = select(func.count()).where(InscriptionEvenement.evenement_id == evenement_id,
                                          InscriptionEvenement.statut == StatutInscription.CONFIRMEE)
        return int((await self.session.execute(stmt)).scalar_one())

    def _queue(self, evenement_id: uuid.UUID) -> Select[Any]:
        return (select(InscriptionEvenement)
                .where(InscriptionEvenement.evenement_id == evenement_id,
                       InscriptionEvenement.statut == StatutInscription.EN_ATTENTE)
                .order_by(InscriptionEvenement.date_inscription, InscriptionEvenement.id))

    async def waiting(self, evenement_id: uuid.UUID, limit: int | None = None) -> list[InscriptionEvenement]:
        stmt = self._queue(evenement_id)
        if limit is not None:
            stmt = stmt.limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def waiting_with_members(self, evenement_id: uuid.UUID) -> list[tuple[InscriptionEvenement, Membre]]:
        """The waiting list in promotion order (first come first served), with each member."""
        stmt = self._queue(evenement_id).add_columns(Membre).join(Membre, Membre.id == InscriptionEvenement.membre_id)
        return [(i, m) for i, m in (await self.session.execute(stmt)).all()]

    async def position(self, inscription: InscriptionEvenement) -> int:
        stmt = select(func.count()).where(
            InscriptionEvenement.evenement_id == inscription.evenement_id,
            InscriptionEvenement.statut == StatutInscription.EN_ATTENTE,
            or_(InscriptionEvenement.date_inscription < inscription.date_inscription,
                (InscriptionEvenement.date_inscription == inscription.date_inscription)
                & (InscriptionEvenement.id <= inscription.id)))
        return int((await self.session.execute(stmt)).scalar_one())

    async def all_active(self, evenement_id: uuid.UUID) -> list[InscriptionEvenement]:
        stmt = select(InscriptionEvenement).where(InscriptionEvenement.evenement_id == evenement_id,
                                                  InscriptionEvenement.statut != StatutInscription.ANNULEE)
        return list((await self.session.execute(stmt)).scalars())

    async def participants(self, evenement_id: uuid.UUID, params: PageParams) -> tuple[list[Any], int, bool]:
        stmt = (select(InscriptionEvenement, Membre)
                .join(Membre, Membre.id == InscriptionEvenement.membre_id)
                .where(InscriptionEvenement.evenement_id == evenement_id,
                       InscriptionEvenement.statut == StatutInscription.CONFIRMEE)
                .order_by(Membre.nom, Membre.prenom, Membre.id))
        rows = list((await self.session.execute(stmt.offset(params.offset).limit(params.size))).all())
        total = int((await self.session.execute(
            select(func.count()).select_from(stmt.order_by(None).subquery()))).scalar_one())
        return rows, total, True

    async def of_member(self, membre_id: uuid.UUID) -> list[tuple[InscriptionEvenement, Evenement]]:
        stmt = (select(InscriptionEvenement, Evenement)
                .join(Evenement, Evenement.id == InscriptionEvenement.evenement_id)
                .where(InscriptionEvenement.membre_id == membre_id)
                .order_by(Evenement.date_debut.desc(), InscriptionEvenement.date_inscription.desc()))
        return [(i, e) for i, e in (await self.session.execute(stmt)).all()]

    async def has_confirmed(self, evenement_id: uuid.UUID, membre_id: uuid.UUID) -> bool:
        stmt = select(InscriptionEvenement.id).where(InscriptionEvenement.evenement_id == evenement_id,
                                                     InscriptionEvenement.membre_id == membre_id,
                                                     InscriptionEvenement.statut == StatutInscription.CONFIRMEE)
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none() is not None

    def add(self, row: Any) -> None:
        self.session.add(row)


class FeedbackEvenementRepository(SystemRepository[FeedbackEvenement]):
    """Feedback on an event the service already loaded through ``EvenementRepository``: unscoped below it."""

    model = FeedbackEvenement

    async def of_member(self, evenement_id: uuid.UUID, membre_id: uuid.UUID) -> FeedbackEvenement | None:
        stmt = select(FeedbackEvenement).where(FeedbackEvenement.evenement_id == evenement_id,
                                               FeedbackEvenement.membre_id == membre_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def lock_of_evenement(self, evenement_id: uuid.UUID, feedback_id: uuid.UUID) -> FeedbackEvenement | None:
        stmt = select(FeedbackEvenement).where(FeedbackEvenement.evenement_id == evenement_id,
                                               FeedbackEvenement.id == feedback_id).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def published(self, evenement_id: uuid.UUID) -> list[tuple[FeedbackEvenement, Membre]]:
        stmt = (select(FeedbackEvenement, Membre).join(Membre, Membre.id == FeedbackEvenement.membre_id)
                .where(FeedbackEvenement.evenement_id == evenement_id,
                       FeedbackEvenement.statut_moderation == StatutModeration.PUBLIE)
                .order_by(FeedbackEvenement.created_at.desc(), FeedbackEvenement.id))
        return [(f, m) for f, m in (await self.session.execute(stmt)).all()]

    async def pending(self, evenement_id: uuid.UUID) -> list[FeedbackEvenement]:
        stmt = (select(FeedbackEvenement)
                .where(FeedbackEvenement.evenement_id == evenement_id,
                       FeedbackEvenement.statut_moderation == StatutModeration.EN_ATTENTE)
                .order_by(FeedbackEvenement.created_at, FeedbackEvenement.id))
        return list((await self.session.execute(stmt)).scalars())


    async def effacer_commentaires_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the comments on events ended before ``limite`` become
        ``texte``; the marks stay for the event's figures."""
        fini = select(Evenement.id).where(Evenement.date_fin < limite)
        stmt = (update(FeedbackEvenement)
                .where(FeedbackEvenement.evenement_id.in_(fini), FeedbackEvenement.commentaire.is_not(None),
                       FeedbackEvenement.commentaire != texte)
                .values(commentaire=texte))
        return await self.lignes_touchees(stmt)


class NotificationEvenementRepository(SystemRepository[NotificationEvenement]):
    """The notices an event sent its members (convocations, changes)."""

    model = NotificationEvenement

    async def effacer_messages_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the text of notices written before ``limite`` becomes
        ``texte``, as the outbox's copies do (``NotificationSystemRepository.effacer_corps_avant``)."""
        stmt = (update(NotificationEvenement)
                .where(NotificationEvenement.date_creation < limite, NotificationEvenement.message != texte)
                .values(message=texte))
        return await self.lignes_touchees(stmt)


class BilanEvenementsRepository(SystemRepository[Evenement]):
    """An organisation's events of a period, for its yearly report. Unscoped: the caller checked that the
    organisation's books are visible to the reader."""

    model = Evenement

    async def tenus(self, organisation_id: uuid.UUID, debut: datetime, fin: datetime) -> tuple[int, int]:
        """Events starting from ``debut`` (included) to ``fin`` (excluded), cancelled ones left out, and their
        registrations not cancelled."""
        evenements = select(Evenement.id).where(
            Evenement.organisation_id == organisation_id, Evenement.date_debut >= debut, Evenement.date_debut < fin,
            Evenement.statut != StatutEvenement.ANNULE)
        nombre = (await self.session.execute(select(func.count()).select_from(evenements.subquery()))).scalar_one()
        inscrits = (await self.session.execute(select(func.count()).where(
            InscriptionEvenement.evenement_id.in_(evenements),
            InscriptionEvenement.statut != StatutInscription.ANNULEE))).scalar_one()
        return int(nombre), int(inscrits)
