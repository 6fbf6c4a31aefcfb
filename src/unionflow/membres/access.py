"""Which organisations the caller acts for with given roles: the scope of member, role and audit rules.

``AuthContext.staff_organisations`` answers "any staff role"; member records and the audit trail need finer
answers (a treasurer reads the register but does not write it, only an organisation administrator grants roles
or reads the audit trail), computed here with the same semantics as the core context.
"""

from __future__ import annotations

from unionflow.core.roles import Role
from unionflow.core.visibility import acts_for, organisations_as

__all__ = ["MEMBRE_READERS", "MEMBRE_WRITERS", "ROLE_GRANTERS", "acts_for", "organisations_as"]

MEMBRE_READERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE, Role.PRESIDENT, Role.TRESORIER})
MEMBRE_WRITERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE})
ROLE_GRANTERS = frozenset({Role.ADMIN_ORGANISATION})
