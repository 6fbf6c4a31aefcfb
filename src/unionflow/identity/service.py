"""Administration of user accounts and realm roles (super administrator), through the identity-provider
interface, and the connected member's password change."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidInput, InvalidState, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.passwords import check_strength
from unionflow.core.roles import Role
from unionflow.identity.provider import IdentityProvider, IdentityUser, NewUser, check_user_id
from unionflow.identity.schemas import (
    CreateUserRequest,
    PasswordChange,
    RealmRoleResponse,
    UpdateUserRequest,
    UserResponse,
)

MODULE = "ADMIN_UTILISATEURS"
UNIONFLOW_ROLES = frozenset(r.value for r in Role)


def _response(user: IdentityUser) -> UserResponse:
    data = asdict(user)
    if user.realm_roles is not None:
        data["realm_roles"] = sorted(r for r in user.realm_roles if r in UNIONFLOW_ROLES)
    return UserResponse.model_validate(data)


def _audit_view(user: IdentityUser) -> dict[str, Any]:
    # Never a password or a hash: the audit trail is readable by auditors.
    return {k: v for k, v in asdict(user).items() if k not in ("created_at", "last_login_at")}


def _check_roles(roles: list[str]) -> list[str]:
    unknown = sorted({r for r in roles if r not in UNIONFLOW_ROLES})
    if unknown:
        raise RegleMetier(f"Rôles inconnus: {', '.join(unknown)}",
                           extra={"errors": [{"field": "realmRoles", "message": f"rôle inconnu: {r}",
                                              "type": "unknown_role"} for r in unknown]})
    return sorted(set(roles))


def _check_password(password: str, field: str) -> None:
    if why := check_strength(password):
        raise RegleMetier(why, extra={"errors": [{"field": field, "message": why, "type": "weak_password"}]})


class AdminUserService:
    def __init__(self, session: AsyncSession, auth: AuthContext, provider: IdentityProvider,
                 issuer: str | None = None) -> None:
        self.session = session
        self.auth = auth
        self.provider = provider
        self.issuer = issuer  # of the provider's accounts' tokens

    def _own_account(self, user_id: str) -> bool:
        """The caller's own account: same subject from the provider's issuer, never the same subject alone."""
        return user_id == self.auth.sub and self.auth.issuer == self.issuer

    async def _record(self, action: str, user_id: str, *, before: dict[str, Any] | None = None,
                      after: dict[str, Any] | None = None, severite: str = "INFO",
                      description: str | None = None) -> None:
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Utilisateur",
                           entite_id=user_id, before=before, after=after, severite=severite,
                           description=description)

    async def lister(self, search: str | None, params: PageParams) -> Page[UserResponse]:
        users = await self.provider.search(search, params.offset, params.size)
        total = await self.provider.count(search)
        for user in users:
            user.realm_roles = None
        return Page[UserResponse].build([_response(u) for u in users], params, total)

    async def obtenir(self, user_id: str) -> UserResponse:
        return _response(await self.provider.get(check_user_id(user_id)))

    async def creer(self, data: CreateUserRequest) -> UserResponse:
        roles = _check_roles(data.realm_roles)
        if data.password is not None:
            _check_password(data.password, "password")
        user = await self.provider.create(NewUser(
            username=data.username, email=str(data.email), first_name=data.first_name, last_name=data.last_name,
            enabled=data.enabled, email_verified=data.email_verified, password=data.password, realm_roles=roles))
        await self._record("CREER", user.id, after=_audit_view(user), severite="WARNING" if roles else "INFO",
                           description=f"Création du compte {user.username}")
        return _response(user)

    async def modifier(self, user_id: str, data: UpdateUserRequest) -> UserResponse:
        changes = data.model_dump(exclude_unset=True)
        password = changes.pop("password", None)
        if password is not None:
            _check_password(password, "password")
        if "username" in changes and changes["username"] is None:
            changes.pop("username")
        for key in ("enabled", "email_verified", "email"):
            if key in changes and changes[key] is None:
                raise InvalidInput(f"{to_camel(key)} ne peut pas être null",
                                   extra={"errors": [{"field": to_camel(key), "message": "ne peut pas être null",
                                                      "type": "null"}]})
        before = await self.provider.get(check_user_id(user_id))
        username = changes.pop("username", None)
        if username is not None and username.lower() != before.username.lower():
            raise RegleMetier("L'identifiant de connexion (username) ne peut pas être modifié")
        if changes.get("enabled") is False and self._own_account(user_id):
            raise Conflict("Vous ne pouvez pas désactiver votre propre compte")
        if "email" in changes and changes["email"] is not None:
            changes["email"] = str(changes["email"]).lower()
        after = await self.provider.update(user_id, changes) if changes else before
        if password is not None:
            # Set by an administrator: its owner must change it at the next sign-in (docs/identity.md).
            await self.provider.reset_password(user_id, password, temporary=True)
        security = password is not None or before.enabled != after.enabled
        await self._record("MODIFIER", user_id, before=_audit_view(before),
                           after={**_audit_view(after), **({"motDePasseReinitialise": True} if password else {})},
                           severite="WARNING" if security else "INFO")
        return _response(after)

    async def realm_roles(self) -> list[RealmRoleResponse]:
        # Keycloak realms carry technical roles (offline_access, default-roles-*): UnionFlow manages its own.
        return [RealmRoleResponse(name=r.name, description=r.description)
                for r in await self.provider.realm_roles() if r.name in UNIONFLOW_ROLES]

    async def user_roles(self, user_id: str) -> list[str]:
        roles = await self.provider.user_roles(check_user_id(user_id))
        return [r for r in roles if r in UNIONFLOW_ROLES]

    async def definir_roles(self, user_id: str, roles: list[str]) -> list[str]:
        wanted = _check_roles(roles)
        current = [r for r in await self.provider.user_roles(check_user_id(user_id)) if r in UNIONFLOW_ROLES]
        if self._own_account(user_id) and Role.SUPER_ADMIN.value not in wanted:
            raise Conflict("Vous ne pouvez pas retirer votre propre rôle SUPER_ADMIN")
        added = [r for r in wanted if r not in current]
        removed = [r for r in current if r not in wanted]
        await self.provider.add_roles(user_id, added)
        await self.provider.remove_roles(user_id, removed)
        if added or removed:
            await self._record("MODIFIER_ROLES", user_id, before={"realmRoles": current},
                               after={"realmRoles": wanted}, severite="WARNING",
                               description=f"Rôles ajoutés: {added or '-'}; retirés: {removed or '-'}")
        return wanted


class WrongCurrentPassword(RegleMetier):
    def __init__(self) -> None:
        super().__init__("Le mot de passe actuel est incorrect", extra={"errors": [
            {"field": "motDePasseActuel", "message": "mot de passe actuel incorrect", "type": "invalid"}]})


class PasswordService:
    """A token of the built-in issuer changes its local password; a token of the external issuer changes the
    password in Keycloak (the only external provider whose admin API we speak)."""

    def __init__(self, session: AsyncSession, auth: AuthContext, local: IdentityProvider,
                 external: IdentityProvider | None, builtin_issuer: str | None) -> None:
        self.session = session
        self.auth = auth
        self.local = local
        self.external = external
        self.builtin_issuer = builtin_issuer

    async def changer(self, data: PasswordChange) -> None:
        _check_password(data.nouveau_mot_de_passe, "nouveauMotDePasse")
        if data.nouveau_mot_de_passe == data.mot_de_passe_actuel:
            raise RegleMetier("Le nouveau mot de passe doit être différent de l'actuel")
        provider = self.local if self.auth.claims.get("iss") == self.builtin_issuer else self.external
        if provider is None:
            raise InvalidState("Votre compte est géré par un fournisseur d'identité externe: changez-y votre "
                               "mot de passe")
        username = self.auth.username or self.auth.email or self.auth.sub
        if not await provider.check_password(self.auth.sub, username, data.mot_de_passe_actuel):
            raise WrongCurrentPassword()
        await provider.reset_password(self.auth.sub, data.nouveau_mot_de_passe)
        await audit.record(self.session, self.auth, action="CHANGER_MOT_DE_PASSE", module="MEMBRES",
                           entite_type="Utilisateur", entite_id=self.auth.sub, severite="WARNING",
                           description=f"Mot de passe changé par l'utilisateur ({provider.kind}); "
                                       "sessions révoquées")
