"""Audit entries written directly (the audit trail's readers are tested on them)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from unionflow.models import AuditLog


async def entry(db, *, when: datetime | None = None, module: str = "TEST", severite: str = "INFO",
                type_action: str = "MODIFIER", organisation_id: uuid.UUID | None = None,
                utilisateur: str = "auditeur@example.sn", ip: str = "10.0.0.1") -> AuditLog:
    row = AuditLog(date_heure=when or datetime.now(UTC), module=module, severite=severite, type_action=type_action,
                   organisation_id=organisation_id, utilisateur=utilisateur, ip_address=ip)
    db.add(row)
    await db.flush()
    return row


def unique_module() -> str:
    return "T" + uuid.uuid4().hex[:10].upper()
