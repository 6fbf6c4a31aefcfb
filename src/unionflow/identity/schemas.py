from __future__ import annotations

from datetime import datetime

from pydantic import Field

from unionflow.core.email import Email
from unionflow.core.passwords import PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH
from unionflow.core.roles import REALM_ROLES_SCHEMA
from unionflow.core.schemas import InputModel, OutputModel, UpdateModel

USERNAME_PATTERN = r"^[A-Za-z0-9._@+-]{3,254}$"


class CreateUserRequest(InputModel):
    """UserDTO for creation. ``password`` is optional (the user may receive it later through a reset)."""

    username: str = Field(pattern=USERNAME_PATTERN, description="Identifiant de connexion (souvent l'e-mail)")
    email: Email
    first_name: str | None = Field(None, max_length=100)
    last_name: str | None = Field(None, max_length=100)
    enabled: bool = True
    email_verified: bool = False
    password: str | None = Field(None, min_length=PASSWORD_MIN_LENGTH, max_length=PASSWORD_MAX_LENGTH,
                                 description="Jamais renvoyé")
    realm_roles: list[str] = Field(default_factory=list, max_length=20, json_schema_extra=REALM_ROLES_SCHEMA)


class UpdateUserRequest(UpdateModel):
    """UserDTO for a partial update: absent fields are left unchanged. ``username`` may be sent back as read
    but cannot change; ``password`` sets a new password (administrator reset)."""

    nullable_fields = frozenset({"first_name", "last_name"})
    username: str | None = Field(None, pattern=USERNAME_PATTERN,
                                 description="Renvoyé tel que lu; une autre valeur est refusée (regle-metier)")
    email: Email | None = None
    first_name: str | None = Field(None, max_length=100)
    last_name: str | None = Field(None, max_length=100)
    enabled: bool | None = None
    email_verified: bool | None = None
    password: str | None = Field(None, min_length=PASSWORD_MIN_LENGTH, max_length=PASSWORD_MAX_LENGTH,
                                 description="Jamais renvoyé")


class UserResponse(OutputModel):
    id: str
    username: str
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    enabled: bool
    email_verified: bool = False
    created_at: datetime | None = None
    realm_roles: list[str] | None = Field(
        None, description="Rôles UnionFlow de l'utilisateur; absent (null) dans les listes")
    # Extension: when the account last signed in (built-in provider; null with Keycloak or never).
    last_login_at: datetime | None = Field(
        None, description="Extension: dernière connexion (fournisseur intégré; null avec Keycloak ou jamais)")


class RealmRoleResponse(OutputModel):
    name: str
    description: str | None = None


class PasswordChange(InputModel):
    mot_de_passe_actuel: str = Field(min_length=1, max_length=256)
    nouveau_mot_de_passe: str = Field(min_length=PASSWORD_MIN_LENGTH, max_length=PASSWORD_MAX_LENGTH)


class CreateDemandeReinitialisationRequest(InputModel):
    email: str = Field(min_length=3, max_length=254)


class DemandeReinitialisationResponse(OutputModel):
    message: str


class CreateReinitialisationRequest(InputModel):
    jeton: str = Field(min_length=20, max_length=200)
    nouveau_mot_de_passe: str = Field(min_length=PASSWORD_MIN_LENGTH, max_length=PASSWORD_MAX_LENGTH)
