"""Built-in identity provider: local accounts, signing keys, refresh tokens, login throttling."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow
from unionflow.models.texte import colonne_recherche


class UtilisateurLocal(IdMixin, TimestampMixin, Base):
    __tablename__ = "utilisateur_local"

    email: Mapped[str] = mapped_column(String(254), unique=True)
    username: Mapped[str] = mapped_column(String(254), unique=True)
    prenom: Mapped[str | None] = mapped_column(String(100))
    nom: Mapped[str | None] = mapped_column(String(100))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    realm_roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    password_changed_at: Mapped[datetime | None]
    # Set by someone else (bootstrap, an administrator's reset): until the owner changes it, the account's tokens
    # only allow that change (core/auth.py, docs/identity.md).
    password_change_required: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    last_login_at: Mapped[datetime | None]
    # Searched by the accounts list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("email", "username", "prenom", "nom")


class SigningKey(Base):
    """RS256 keys of the built-in issuer, kept in the database so every worker and host shares them."""

    __tablename__ = "signing_key"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[dict[str, str]] = mapped_column(JSON)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RefreshToken(Base):
    __tablename__ = "refresh_token"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("utilisateur_local.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    family_id: Mapped[uuid.UUID] = mapped_column(index=True)
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LoginThrottle(Base):
    """Fixed-window counter of failed logins per key (e-mail or IP), shared by all workers."""

    __tablename__ = "login_throttle"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    window_start: Mapped[datetime]
    failures: Mapped[int] = mapped_column(default=0)


class Compteur(Base):
    """Named counters for human-readable numbers (numeroMembre, receipts)."""

    __tablename__ = "compteur"

    nom: Mapped[str] = mapped_column(String(100), primary_key=True)
    valeur: Mapped[int] = mapped_column(default=0)
