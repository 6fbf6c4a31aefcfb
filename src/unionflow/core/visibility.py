"""Row visibility, once: the rules of docs/authorization.md as SQL conditions repositories add to queries.

SUPER_ADMIN/ADMIN see every row; an organisation staff role sees its organisations' rows; everyone sees their
own personal rows. A row outside these answers 404 where it is asked for by id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, false, or_, true

from unionflow.core.auth import AuthContext


def scope(auth: AuthContext | None, organisation_col: Any, membre_col: Any = None) -> ColumnElement[bool]:
    """Global callers (and system jobs: ``auth=None``) see all; staff their organisations' rows; a member
    the rows whose ``membre_col`` is themselves (omit ``membre_col`` for organisation-only records)."""
    if auth is None or auth.is_global:
        return true()
    clauses: list[ColumnElement[bool]] = []
    if auth.staff_organisations:
        clauses.append(organisation_col.in_(auth.staff_organisations))
    if membre_col is not None and auth.membre_id is not None:
        clauses.append(membre_col == auth.membre_id)
    return or_(*clauses) if clauses else false()


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
