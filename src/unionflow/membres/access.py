"""Which organisations' member register the caller reads: the read scope of member and audit rules.

``AuthContext.staff_organisations`` answers "any staff role"; the member register needs a finer read scope (a
treasurer reads the register, an event organiser does not). Writing it and granting roles are permissions
(``Permission.MEMBRE_GERER``, ``Permission.ROLE_ATTRIBUER`` in core/permissions.py).
"""

from __future__ import annotations

from unionflow.core.roles import Role
from unionflow.core.visibility import organisations_as

__all__ = ["MEMBRE_READERS", "organisations_as"]

# The commissaire aux comptes (extension, issue 19) reads the register to check dues against members.
MEMBRE_READERS = frozenset({Role.ADMIN_ORGANISATION, Role.SECRETAIRE, Role.PRESIDENT, Role.TRESORIER,
                            Role.COMMISSAIRE_AUX_COMPTES})
