"""Builders for test data and callers, the one home of the tests' builders (functions that create rows,
users, organisations or tokens, through the API or the database): ``Factory`` and ``Actor`` here, the areas' builders
in the modules beside this one (tests/factories/<area>.py). Tokens are signed by the built-in issuer's real key, so
every request goes through the same verification path as production."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.service import TokenService
from unionflow.config import Settings
from unionflow.models import Membre, MembreOrganisation, Organisation, UtilisateurLocal


@dataclass
class Actor:
    user: UtilisateurLocal
    token: str
    membre: Membre | None = None
    organisation_id: uuid.UUID | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **self.extra_headers}

    def in_org(self, organisation_id: uuid.UUID, role: str | None = None) -> dict[str, str]:
        headers = {**self.headers, "X-Active-Organisation-Id": str(organisation_id)}
        if role:
            headers["X-Active-Role"] = role
        return headers


class Factory:
    def __init__(self, session: AsyncSession, settings: Settings, commit: bool = False) -> None:
        self.session = session
        self.settings = settings
        self.commit = commit
        self._n = 0

    async def _flush(self) -> None:
        await self.session.flush()
        if self.commit:
            await self.session.commit()

    def _next(self) -> int:
        self._n += 1
        return self._n

    async def organisation(self, **values: Any) -> Organisation:
        n = self._next()
        data: dict[str, Any] = {"nom": f"Association {n} {uuid.uuid4().hex[:6]}", "type_organisation": "ASSOCIATION",
                                "statut": "ACTIVE", "pays": "SN", "devise": "XOF"}
        data.update(values)
        org = Organisation(**data)
        self.session.add(org)
        await self._flush()
        return org

    async def membre(self, organisation: Organisation | None = None, org_roles: list[str] | None = None,
                     **values: Any) -> Membre:
        n = self._next()
        suffix = uuid.uuid4().hex[:8]
        data: dict[str, Any] = {"numero_membre": f"MBR-T-{suffix}", "prenom": f"Awa{n}", "nom": "Diop",
                                "email": f"membre{n}.{suffix}@example.sn", "statut": "ACTIF"}
        data.update(values)
        if data.get("user_sub") is not None:
            # A link names the account's issuer (by default the built-in one) with its subject.
            data.setdefault("user_iss", self.settings.issuer)
        membre = Membre(**data)
        self.session.add(membre)
        await self.session.flush()
        if organisation is not None:
            self.session.add(MembreOrganisation(membre_id=membre.id, organisation_id=organisation.id,
                                                roles=org_roles or ["MEMBRE"], date_debut=date.today()))
        await self._flush()
        return membre

    async def actor(self, realm_roles: list[str] | None = None, *, organisation: Organisation | None = None,
                    org_roles: list[str] | None = None, with_membre: bool = True,
                    email: str | None = None) -> Actor:
        """A caller: local account (realm roles), optionally a member record with a membership."""
        suffix = uuid.uuid4().hex[:10]
        email = (email or f"user.{suffix}@example.sn").lower()
        user = UtilisateurLocal(email=email, username=email, realm_roles=realm_roles or [], enabled=True,
                                prenom="Test", nom=suffix)
        self.session.add(user)
        await self.session.flush()
        membre = None
        if with_membre:
            membre = await self.membre(organisation, org_roles, email=email, user_sub=str(user.id))
        await self._flush()
        token, _ = await TokenService(self.session, self.settings).access_token(user)
        return Actor(user=user, token=token, membre=membre,
                     organisation_id=organisation.id if organisation else None)


def ref(prefix: str) -> str:
    """A unique reference: ``<prefix>-<12 hex digits>``."""
    return f"{prefix}-{uuid.uuid4().hex[:12].upper()}"


async def add(factory: Factory, *rows: Any) -> None:
    """Write rows built but not yet added (flushed, not committed)."""
    factory.session.add_all(rows)
    await factory.session.flush()

