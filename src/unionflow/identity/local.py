"""Built-in identity provider: accounts in ``utilisateur_local``, argon2 hashes, roles from ``core.roles.Role``."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.repository import RefreshTokenRepository, UtilisateurRepository
from unionflow.core.errors import Conflict, NotFound
from unionflow.core.passwords import hash_password, verify_password
from unionflow.core.roles import Role
from unionflow.identity.provider import IdentityUser, NewUser, RealmRole
from unionflow.models import UtilisateurLocal

ROLE_DESCRIPTIONS = {
    Role.SUPER_ADMIN: "Super-administrateur de la plateforme (utilisateurs, configuration)",
    Role.ADMIN: "Administrateur de l'union: voit et gère toutes les organisations",
    Role.ADMIN_ORGANISATION: "Administrateur d'une organisation",
    Role.MEMBRE: "Membre d'une organisation",
    Role.USER: "Utilisateur authentifié sans adhésion",
    Role.MODERATEUR: "Modérateur (supervision, journaux)",
    Role.TRESORIER: "Trésorier d'une organisation",
    Role.PRESIDENT: "Président d'une organisation",
    Role.SECRETAIRE: "Secrétaire d'une organisation",
    Role.ORGANISATEUR_EVENEMENT: "Organisateur d'événements",
    Role.COMMISSAIRE_AUX_COMPTES: "Commissaire aux comptes d'une organisation (lecture seule, extension)",
    Role.DELEGUE_PROTECTION_DONNEES: "Délégué à la protection des données d'une organisation (extension)",
}

_FIELDS = {"email", "first_name", "last_name", "enabled", "email_verified"}


def _to_identity(user: UtilisateurLocal) -> IdentityUser:
    return IdentityUser(
        id=str(user.id), username=user.username, email=user.email, first_name=user.prenom, last_name=user.nom,
        enabled=user.enabled, email_verified=user.email_verified, created_at=user.created_at,
        realm_roles=sorted(user.realm_roles or []), last_login_at=user.last_login_at,
    )


class LocalProvider:
    kind = "builtin"

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self.users = UtilisateurRepository(session)

    async def search(self, search: str | None, first: int, max_results: int) -> list[IdentityUser]:
        return [_to_identity(u) for u in await self.users.search(search, first, max_results)]

    async def count(self, search: str | None) -> int:
        return await self.users.count_matching(search)

    async def _user(self, user_id: str, *, for_update: bool = False) -> UtilisateurLocal:
        try:
            key = uuid.UUID(user_id)
        except ValueError:
            raise NotFound("Utilisateur introuvable") from None
        user = await self.users.by_id(key, for_update=for_update)
        if user is None:
            raise NotFound("Utilisateur introuvable")
        return user

    async def get(self, user_id: str) -> IdentityUser:
        return _to_identity(await self._user(user_id))

    async def _check_unique(self, email: str | None, username: str | None, exclude: uuid.UUID | None) -> None:
        if await self.users.email_or_username_taken(email, username, exclude):
            raise Conflict("Un utilisateur existe déjà avec cet identifiant ou cet e-mail")

    async def create(self, user: NewUser) -> IdentityUser:
        email, username = user.email.strip().lower(), user.username.strip().lower()
        await self._check_unique(email, username, None)
        now = datetime.now(UTC)
        row = UtilisateurLocal(
            email=email, username=username, prenom=user.first_name, nom=user.last_name, enabled=user.enabled,
            email_verified=user.email_verified, realm_roles=sorted(set(user.realm_roles)),
            password_hash=hash_password(user.password) if user.password else None,
            password_changed_at=now if user.password else None,
        )
        self.users.add(row)
        await self.session.flush()
        return _to_identity(row)

    async def update(self, user_id: str, changes: dict[str, Any]) -> IdentityUser:
        user = await self._user(user_id, for_update=True)
        if changes.get("email"):
            changes["email"] = str(changes["email"]).strip().lower()
            await self._check_unique(changes["email"], None, user.id)
        column = {"first_name": "prenom", "last_name": "nom"}
        for key, value in changes.items():
            if key in _FIELDS:
                setattr(user, column.get(key, key), value)
        if changes.get("enabled") is False:
            # A disabled account must not mint new access tokens from refresh tokens it already holds.
            await RefreshTokenRepository(self.session).revoke_user(user.id, datetime.now(UTC))
        await self.session.flush()
        return _to_identity(user)

    async def realm_roles(self) -> list[RealmRole]:
        return [RealmRole(name=r.value, description=ROLE_DESCRIPTIONS.get(r)) for r in Role]

    async def user_roles(self, user_id: str) -> list[str]:
        return sorted((await self._user(user_id)).realm_roles or [])

    async def add_roles(self, user_id: str, roles: list[str]) -> None:
        user = await self._user(user_id, for_update=True)
        user.realm_roles = sorted(set(user.realm_roles or []) | set(roles))
        await self.session.flush()

    async def remove_roles(self, user_id: str, roles: list[str]) -> None:
        user = await self._user(user_id, for_update=True)
        user.realm_roles = sorted(set(user.realm_roles or []) - set(roles))
        await self.session.flush()

    async def reset_password(self, user_id: str, password: str, *, temporary: bool = False) -> None:
        user = await self._user(user_id, for_update=True)
        now = datetime.now(UTC)
        user.password_hash = hash_password(password)
        user.password_changed_at = now
        user.password_change_required = temporary
        await RefreshTokenRepository(self.session).revoke_user(user.id, now)
        await self.session.flush()

    async def check_password(self, user_id: str, username: str, password: str) -> bool:
        user = await self._user(user_id)
        return verify_password(user.password_hash, password)
