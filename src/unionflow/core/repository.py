"""The scoped repository base: every query of an area starts from rows the caller may see.

A repository names its model and, when the area's rule differs from the default, overrides ``scope()``.
The default is the rule of ``core/visibility.py``: global roles see every row, organisation staff the rows of
their organisations, and — only where the repository says ``personal = True`` — a member the rows whose
``membre_id`` is their own. Organisation records (accounts, LCB-FT alerts about a member, ...) stay
organisation-only by default: a row naming a member is not thereby the member's to read. Reads by id go
through ``get``/``get_for_update`` so that an invisible row is ``None`` (404 in the service), never a 403.
Repositories only read and write rows: notifications and other side effects belong to services.

The rule is also exposed as Core: ``visibility(auth)`` says which shape of condition applies to a caller and
which values it binds, ``scope_condition(shape)`` builds that condition with named parameters, so the session-free
read path (docs/architecture.md, "Read path") prebuilds one statement per shape from the same rule; ``scope()`` is
that condition with the caller's values bound.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import ColumnElement, Executable, Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.visibility import Shape, Visibility, condition, visibility
from unionflow.core.visibility import scope as visibility_scope
from unionflow.models.base import Base

M = TypeVar("M", bound=Base)
S = TypeVar("S", bound=Select[Any])


def pour_modifier(stmt: S) -> S:
    """The row lock of a read before a change: ``FOR NO KEY UPDATE`` on PostgreSQL (what its own UPDATE of non-key
    columns takes; SQLite has no row locks). It serialises the writers of the row as ``FOR UPDATE`` does, but not
    the inserts that merely reference it: a foreign key takes ``FOR KEY SHARE`` on the row it names, which ``FOR
    UPDATE`` blocks. Held on an organisation (payouts) or a member, ``FOR UPDATE`` queued every payment of that
    organisation or member behind it until commit, and closed deadlock cycles with the receipt counters
    (docs/decisions.md « Verrous de ligne et clés étrangères »)."""
    return stmt.with_for_update(key_share=True)


class _Repository(ABC, Generic[M]):
    """Mechanics shared by both bases: reads by id, paging and adding rows, all through ``select()``."""

    model: ClassVar[type[Any]]
    session: AsyncSession

    @abstractmethod
    def select(self) -> Select[Any]:
        """The rows this repository starts from (each base says which)."""

    async def get(self, row_id: uuid.UUID, *, for_update: bool = False) -> M | None:
        stmt = self.select().where(self.model.id == row_id)
        if for_update:
            stmt = pour_modifier(stmt)
        row: M | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return row

    async def get_for_update(self, row_id: uuid.UUID) -> M | None:
        return await self.get(row_id, for_update=True)

    async def paginate(self, stmt: Select[Any], params: PageParams) -> tuple[list[Any], int, bool]:
        return await paginate(self.session, stmt, params)

    def add(self, row: Any) -> None:
        self.session.add(row)

    async def lignes_touchees(self, stmt: Executable) -> int:
        """Runs a bulk UPDATE or DELETE of this repository's table; how many rows it changed."""
        return int(getattr(await self.session.execute(stmt), "rowcount", 0) or 0)

    # The data subject's rows (Loi 2008-12: access and erasure, unionflow/donnees_membre). Called on the owning
    # area's repository, for one of the tables that area owns (the export's registry says which; its test checks
    # the owner), unscoped: the service checked who asks first. ORM objects, so that mapper events (the search
    # key of models/texte.py) follow a pseudonymised name.
    async def lignes_du_sujet(self, table: str, colonne: str, valeur: Any) -> list[Any]:
        modele = modele_de(table)
        stmt = select(modele).where(getattr(modele, colonne) == valeur)
        return list((await self.session.execute(stmt)).scalars().all())

    async def modifier_du_sujet(self, table: str, colonne: str, valeur: Any, valeurs: dict[str, Any]) -> int:
        lignes = await self.lignes_du_sujet(table, colonne, valeur)
        for ligne in lignes:
            for champ, nouvelle in valeurs.items():
                setattr(ligne, champ, nouvelle)
        await self.session.flush()
        return len(lignes)

    async def supprimer_du_sujet(self, table: str, colonne: str, valeur: Any) -> int:
        lignes = await self.lignes_du_sujet(table, colonne, valeur)
        for ligne in lignes:
            await self.session.delete(ligne)
        await self.session.flush()
        return len(lignes)


def modele_de(table: str) -> type[Any]:
    """The mapped class of ``table``."""
    for mapper in Base.registry.mappers:
        if getattr(mapper.local_table, "name", None) == table:
            return mapper.class_
    raise KeyError(table)


class ScopedRepository(_Repository[M]):
    # Members see the rows whose ``membre_id`` is theirs.
    personal: ClassVar[bool] = False

    def __init__(self, session: AsyncSession, auth: AuthContext | None) -> None:
        self.session = session
        # None: a system job (scheduler, CLI) that sees every row.
        self.auth = auth

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        """Which shape of ``scope_condition`` applies to ``auth``, and the values it binds."""
        return visibility(auth, cls.personal)

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        """The scope of ``shape`` on ``model``, with named parameters (prebuilt statements) or ``values`` bound.
        An area with its own rule overrides this pair (not ``scope``), so both paths keep one rule."""
        return condition(shape, cls.model.organisation_id, cls.model.membre_id if cls.personal else None, values)

    def scope(self) -> ColumnElement[bool]:
        """Which rows of ``model`` the caller sees."""
        seen = self.visibility(self.auth)
        return self.scope_condition(seen.shape, seen.values)

    def in_scope(self, column: Any) -> ColumnElement[bool]:
        """Organisation-only scope on another table's organisation column (global: all; staff: theirs)."""
        return visibility_scope(self.auth, column)

    def select(self) -> Select[Any]:
        return select(self.model).where(self.scope())


class SystemRepository(_Repository[M]):
    """The one explicit UNSCOPED base: every row of ``model``, for work done on the system's behalf — scheduled
    jobs, webhook deliveries, the identity provider, and workflows whose caller was already checked (the service
    loaded the record through a scoped repository and asked its permission first). Its name is the warning: a
    request-facing read must go through a ``ScopedRepository`` so that an invisible row stays a 404."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def select(self) -> Select[Any]:
        return select(self.model)
