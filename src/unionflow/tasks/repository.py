"""Background tasks: visible to their creator and to global roles only (404 otherwise); claimed by one
scheduler at a time, and again by another once a crashed runner's lease has passed."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select, true, update

from unionflow.core.auth import AuthContext
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import EVERY, Shape, Visibility, scope_param
from unionflow.models import Tache
from unionflow.models.planificateur import StatutTache

S = StatutTache
# Bind parameter of the creator rule: the caller's subject.
SCOPE_SUB = "scope_sub"


def _reclamable(now: datetime) -> Any:
    return or_(Tache.statut == S.EN_ATTENTE.value,
               and_(Tache.statut == S.EN_COURS.value, Tache.verrouillee_jusqua < now))


class TacheRepository(ScopedRepository[Tache]):
    """A caller sees the tasks he created (global roles: all); the scheduler (``auth=None``) claims any."""

    model = Tache

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is None or auth.is_global:
            return EVERY
        return Visibility(Shape(membre=True), {SCOPE_SUB: auth.personne})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        return true() if shape.every else Tache.cree_par == scope_param(SCOPE_SUB, values)

    async def reclamer(self, now: datetime, bail: datetime, hote: str) -> Tache | None:
        """The oldest runnable task, now leased to ``hote``; the caller commits."""
        candidate = select(Tache.id).where(_reclamable(now)).order_by(Tache.date_creation, Tache.id).limit(1)
        if self.session.get_bind().dialect.name == "postgresql":
            candidate = candidate.with_for_update(skip_locked=True)
        tache_id = (await self.session.execute(candidate)).scalar_one_or_none()
        if tache_id is None:
            return None
        result = await self.session.execute(
            update(Tache).where(Tache.id == tache_id, _reclamable(now))
            .values(statut=S.EN_COURS.value, verrouillee_jusqua=bail, verrouillee_par=hote, date_debut=now)
            .execution_options(synchronize_session=False))
        if not getattr(result, "rowcount", 0):
            return None
        return await self.session.get(Tache, tache_id, populate_existing=True)

    async def avancer(self, tache_id: uuid.UUID, traites: int, total: int, bail: datetime) -> None:
        # Never 100 before the end: TERMINEE says that.
        progression = min(99, traites * 100 // total) if total else 0
        await self.session.execute(
            update(Tache).where(Tache.id == tache_id)
            .values(traites=traites, total=total, progression=progression, verrouillee_jusqua=bail)
            .execution_options(synchronize_session=False))

    async def terminer(self, tache_id: uuid.UUID, values: dict[str, Any]) -> None:
        await self.session.execute(
            update(Tache).where(Tache.id == tache_id)
            .values(verrouillee_jusqua=None, verrouillee_par=None, **values)
            .execution_options(synchronize_session=False))
