"""Which organisations the caller acts for with given roles: the scope of member, role and audit rules.

``AuthContext.staff_organisations`` answers "any staff role"; member records and the audit trail need finer
answers (a treasurer reads the register but does not write it, only an organisation administrator grants roles
or reads the audit trail), computed here with the same semantics as the core context.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from unionflow.core.auth import AuthContext
from unionflow.core.roles import Role

MEMBRE_READERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE, Role.PRESIDENT, Role.TRESORIER})
MEMBRE_WRITERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE})
ROLE_GRANTERS = frozenset({Role.ADMIN_ORGANISATION})


def organisations_as(auth: AuthContext, roles: Iterable[str]) -> frozenset[uuid.UUID]:
    """Organisations where the caller currently acts with one of ``roles`` (global callers: see ``is_global``).

    With an active organisation the effective roles apply to it alone; without one, a realm-level role applies
    to every membership (core rule) and a membership role to its own organisation."""
    wanted = frozenset(roles)
    if auth.roles.isdisjoint(wanted):
        return frozenset()
    if auth.active_organisation_id is not None:
        return frozenset({auth.active_organisation_id})
    realm = not auth.realm_roles.isdisjoint(wanted)
    return frozenset(org for org, held in auth.memberships.items() if realm or not held.isdisjoint(wanted))


def acts_for(auth: AuthContext, organisation_id: uuid.UUID, roles: Iterable[str]) -> bool:
    return auth.is_global or organisation_id in organisations_as(auth, roles)
