"""Rules shared by the finance areas (budgets, approvals, workflow): who decides, how amounts leave."""

from __future__ import annotations

import uuid
from decimal import Decimal

from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role

# Every finance audit entry carries this module: the workflow audit trail reads it back.
MODULE = "FINANCE"
CENT = Decimal("0.01")
DECIDEURS = (Role.PRESIDENT.value, Role.ADMIN_ORGANISATION.value)


def q(value: Decimal) -> Decimal:
    """Amounts leave with two decimals on both databases (SQLite hands back what it was given)."""
    return Decimal(value).quantize(CENT)


def verifier_decideur(auth: AuthContext, organisation_id: uuid.UUID, demandeur_sub: str | None) -> str:
    """The president or the administrator of the organisation decides, and never on their own request.

    Returns the role under which the decision is taken (kept with the decision for the audit trail)."""
    auth.require(Permission.FINANCE_DECIDER, organisation_id,
                 "Seuls le PRESIDENT et l'ADMIN_ORGANISATION de l'organisation décident")
    roles = auth.roles_in(organisation_id)
    held = [role for role in DECIDEURS if role in roles]
    if demandeur_sub is not None and demandeur_sub == auth.personne:
        raise Forbidden("Principe des quatre yeux: on ne décide pas de sa propre demande")
    return held[0]
