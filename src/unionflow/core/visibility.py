"""Row visibility, once: the rules of docs/authorization.md as SQL conditions repositories add to queries.

SUPER_ADMIN/ADMIN see every row; an organisation staff role sees its organisations' rows; everyone sees their
own personal rows. A row outside these answers 404 where it is asked for by id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, bindparam, false, or_, true

from unionflow.core.auth import AuthContext

# Bind parameter names of the scope condition in prebuilt statements (core/db.py, "Read path").
SCOPE_ORGANISATIONS = "scope_organisations"
SCOPE_MEMBRE = "scope_membre"


@dataclass(frozen=True, slots=True)
class Shape:
    """Which branches of the visibility rule apply to a caller: one prebuilt statement per shape."""

    every: bool = False
    organisations: bool = False
    membre: bool = False


@dataclass(frozen=True, slots=True)
class Visibility:
    """A caller's visibility: the shape of the condition and the values it binds."""

    shape: Shape
    values: dict[str, Any]


EVERY = Visibility(Shape(every=True), {})


def visibility(auth: AuthContext | None, personal: bool) -> Visibility:
    """The rule: global callers (and system jobs: ``auth=None``) see all; staff their organisations' rows; a
    member the rows naming them where ``personal``."""
    if auth is None or auth.is_global:
        return EVERY
    organisations = bool(auth.staff_organisations)
    membre = personal and auth.membre_id is not None
    return Visibility(Shape(organisations=organisations, membre=membre),
                      {SCOPE_ORGANISATIONS: sorted(auth.staff_organisations), SCOPE_MEMBRE: auth.membre_id})


def scope_param(name: str, values: dict[str, Any] | None, *, expanding: bool = False) -> BindParameter[Any]:
    """A named parameter for a prebuilt statement (``values`` None), or a bound one (anonymous name, so two
    scopes in one query never collide)."""
    if values is None:
        return bindparam(name, expanding=expanding)
    return bindparam(name, values[name], unique=True, expanding=expanding)


def condition(shape: Shape, organisation_col: Any, membre_col: Any = None,
              values: dict[str, Any] | None = None) -> ColumnElement[bool]:
    """The condition of ``shape`` on these columns: with ``values`` bound, or with named parameters to bind at
    execution (``SCOPE_ORGANISATIONS``, ``SCOPE_MEMBRE``)."""
    if shape.every:
        return true()
    clauses: list[ColumnElement[bool]] = []
    if shape.organisations:
        clauses.append(organisation_col.in_(scope_param(SCOPE_ORGANISATIONS, values, expanding=True)))
    if shape.membre and membre_col is not None:
        clauses.append(membre_col == scope_param(SCOPE_MEMBRE, values))
    return or_(*clauses) if clauses else false()


def scope(auth: AuthContext | None, organisation_col: Any, membre_col: Any = None) -> ColumnElement[bool]:
    """Global callers (and system jobs: ``auth=None``) see all; staff their organisations' rows; a member
    the rows whose ``membre_col`` is themselves (omit ``membre_col`` for organisation-only records)."""
    seen = visibility(auth, membre_col is not None)
    return condition(seen.shape, organisation_col, membre_col, seen.values)


def organisations_as(auth: AuthContext, roles: Iterable[str]) -> frozenset[uuid.UUID]:
    """Organisations where the caller currently acts with one of ``roles`` (global callers: see ``is_global``).

    With an active organisation the effective roles apply to it alone; without one, a realm-level role applies
    to every membership and a membership role to its own organisation."""
    wanted = frozenset(roles)
    if auth.roles.isdisjoint(wanted):
        return frozenset()
    if auth.active_organisation_id is not None:
        return frozenset({auth.active_organisation_id})
    realm = not auth.realm_roles.isdisjoint(wanted)
    return frozenset(org for org, held in auth.memberships.items() if realm or not held.isdisjoint(wanted))


def staff_sees(auth: AuthContext, organisation_id: uuid.UUID | None) -> bool:
    """The caller reads this organisation's staff-only records (global, or an organisation role there). Reads only:
    acting on them needs a permission (``auth.require``, core/permissions.py)."""
    return auth.is_global or (organisation_id is not None and organisation_id in auth.staff_organisations)
