"""The access log of members' files (Loi 2008-12, docs/donnees-personnelles.md): one row per read of a member's
file by someone other than the member, added to the reading request's transaction like an audit entry
(core/audit.py): one INSERT at its commit, no read. The rows are owned and read by donnees_personnelles/."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.models import AccesDossier


def _organisation(auth: AuthContext) -> uuid.UUID | None:
    """The organisation the reader acts for: the active one, or his only one; None for a union-wide reader."""
    if auth.active_organisation_id is not None:
        return auth.active_organisation_id
    staff = auth.staff_organisations
    return next(iter(staff)) if len(staff) == 1 else None


def noter(session: AsyncSession, auth: AuthContext | None, membre_id: uuid.UUID, ecran: str) -> None:
    """Log that ``auth`` read the file of ``membre_id`` on ``ecran`` (an API route template or a console screen).
    The member reading his own file is not logged, nor the system's own work (``auth`` None)."""
    if auth is None or auth.membre_id == membre_id:
        return
    session.add(AccesDossier(membre_id=membre_id, organisation_id=_organisation(auth), lecteur=auth.personne,
                             lecteur_nom=auth.actor_name[:254], lecteur_roles=",".join(sorted(auth.roles))[:300],
                             ecran=ecran[:200]))
