"""Identity-provider interface: where user accounts and their realm roles live.

Two implementations, chosen by settings: the built-in provider (table ``utilisateur_local``, argon2 hashes) and
Keycloak through its Admin REST API (when ``keycloak_admin_url`` is set). The admin endpoints and the password
change talk to this interface only, so they behave the same whichever provider holds the accounts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from unionflow.core.errors import NotFound

# Ids travel into URLs of the external provider: anything else than a plain identifier is simply unknown.
_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_user_id(user_id: str) -> str:
    if not _USER_ID.match(user_id):
        raise NotFound("Utilisateur introuvable")
    return user_id


@dataclass
class IdentityUser:
    id: str
    username: str
    email: str | None
    first_name: str | None = None
    last_name: str | None = None
    enabled: bool = True
    email_verified: bool = False
    created_at: datetime | None = None
    realm_roles: list[str] | None = None
    # Built-in provider only (Keycloak's admin API does not give it on a user): None there, or never signed in.
    last_login_at: datetime | None = None


@dataclass
class NewUser:
    username: str
    email: str
    first_name: str | None = None
    last_name: str | None = None
    enabled: bool = True
    email_verified: bool = False
    password: str | None = None
    realm_roles: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RealmRole:
    name: str
    description: str | None = None
    id: str | None = None


@runtime_checkable
class IdentityProvider(Protocol):
    """Accounts and realm roles. Missing user → ``NotFound``; unreachable provider → ``UpstreamUnavailable``;
    provider failure → ``UpstreamError``; duplicate username/e-mail → ``Conflict``."""

    kind: str

    async def search(self, search: str | None, first: int, max_results: int) -> list[IdentityUser]: ...

    async def count(self, search: str | None) -> int: ...

    async def get(self, user_id: str) -> IdentityUser: ...

    async def create(self, user: NewUser) -> IdentityUser: ...

    async def update(self, user_id: str, changes: dict[str, Any]) -> IdentityUser:
        """``changes`` uses IdentityUser field names (first_name, enabled, ...)."""
        ...

    async def realm_roles(self) -> list[RealmRole]: ...

    async def user_roles(self, user_id: str) -> list[str]: ...

    async def add_roles(self, user_id: str, roles: list[str]) -> None: ...

    async def remove_roles(self, user_id: str, roles: list[str]) -> None: ...

    async def reset_password(self, user_id: str, password: str, *, temporary: bool = False) -> None:
        """Set a new password and end the user's sessions where the provider keeps them. ``temporary``: set by
        an administrator, to be changed by its owner at the next sign-in."""
        ...

    async def check_password(self, user_id: str, username: str, password: str) -> bool: ...
