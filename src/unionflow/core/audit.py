"""Audit trail: every successful state change writes one entry in the same transaction."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.inspection import inspect

from unionflow.core.auth import AuthContext
from unionflow.core.logs import current_request_id
from unionflow.models import AuditLog


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal | uuid.UUID | Enum):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    return value


def snapshot(entity: Any, fields: list[str] | None = None) -> dict[str, Any]:
    """Column values of an ORM object, JSON-ready, for the before/after summary of an audit entry."""
    names = fields or [c.key for c in inspect(entity).mapper.column_attrs]
    return {name: _jsonable(getattr(entity, name)) for name in names}


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {k: {"avant": before.get(k), "apres": v} for k, v in after.items() if before.get(k) != v}


async def record(session: AsyncSession, actor: AuthContext | None, **fields: Any) -> AuditLog:
    """Add one audit entry to the session (written at its next flush). See ``entry`` for the fields."""
    row = entry(actor, **fields)
    session.add(row)
    return row


def entry(
    actor: AuthContext | None,
    *,
    action: str,
    module: str,
    entite_type: str | None = None,
    entite_id: Any = None,
    description: str | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    severite: str = "INFO",
    organisation_id: uuid.UUID | None = None,
) -> AuditLog:
    details: dict[str, Any] = {}
    if before is not None:
        details["avant"] = _jsonable(before)
    if after is not None:
        details["apres"] = _jsonable(after)
    return AuditLog(
        id=uuid.uuid4(),
        utilisateur=actor.actor_name if actor else "systeme",
        utilisateur_id=actor.sub if actor else None,
        utilisateur_emetteur=actor.issuer if actor else None,
        role_actif=(actor.active_role if actor else None),
        organisation_id=organisation_id or (actor.active_organisation_id if actor else None),
        type_action=action,
        module=module,
        entite_type=entite_type,
        entite_id=str(entite_id) if entite_id is not None else None,
        description=description,
        details=details or None,
        ip_address=actor.ip_address if actor else None,
        user_agent=actor.user_agent if actor else None,
        severite=severite,
        request_id=current_request_id(),
    )
