""""Mot de passe oublié" for accounts of the built-in identity provider, and the operator's
``unionflow users reset-password``.

The request never tells whether an account exists: same answer, same work visible to the caller. The link's
token is 256 random bits, stored only as its SHA-256, spent on first use, expiring after
``reinitialisation_ttl_seconds``; a new request spends the previous ones. The e-mail goes through the
notification outbox (no member row needed) and its body is blanked once delivered."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.repository import JetonReinitialisationRepository, RefreshTokenRepository, UtilisateurRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.errors import NotFound, RegleMetier, UnionFlowError
from unionflow.core.passwords import check_strength, hash_password
from unionflow.models import JetonReinitialisation, Notification, UtilisateurLocal
from unionflow.models.base import utcnow
from unionflow.notifications.sources import JETON_REINITIALISATION

MODULE = "AUTHENTIFICATION"
TYPE_NOTIFICATION = "REINITIALISATION_MOT_DE_PASSE"


class JetonInvalide(UnionFlowError):
    status, slug, title = 400, "invalid-reset-token", "Lien de réinitialisation invalide"

    def __init__(self) -> None:
        super().__init__("Lien de réinitialisation invalide, expiré ou déjà utilisé: refaites une demande",
                         extra={"errors": [{"field": "jeton", "message": "invalide, expiré ou déjà utilisé",
                                            "type": "invalid_token"}]})


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _check_password(password: str) -> None:
    if why := check_strength(password):
        raise RegleMetier(why, extra={"errors": [{"field": "nouveauMotDePasse", "message": why,
                                                   "type": "weak_password"}]})


async def _set_password(session: AsyncSession, user: UtilisateurLocal, password: str) -> None:
    now = utcnow()
    user.password_hash = hash_password(password)
    user.password_changed_at = now
    user.password_change_required = False  # chosen by its owner (e-mailed link) or the operator on the server
    # A lost password may be a stolen one: every session of the account ends.
    await RefreshTokenRepository(session).revoke_user(user.id, now)
    await JetonReinitialisationRepository(session).invalidate_user(user.id, now)
    await session.flush()


class ReinitialisationService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.users = UtilisateurRepository(session)
        self.jetons = JetonReinitialisationRepository(session)

    def _lien(self, token: str) -> str:
        page = self.settings.reinitialisation_url or f"{self.settings.public_base_url.rstrip('/')}" \
                                                      "/reinitialiser-mot-de-passe"
        return f"{page}{'&' if '?' in page else '?'}{urlencode({'jeton': token})}"

    async def demander(self, email: str) -> None:
        """Queue the e-mail when ``email`` is an enabled built-in account; otherwise do nothing, silently."""
        if not self.settings.builtin_idp_enabled:
            return
        user = await self.users.by_email(email.strip().lower())
        if user is None or not user.enabled:
            return
        now = utcnow()
        await self.jetons.invalidate_user(user.id, now)
        token = secrets.token_urlsafe(32)
        ttl = self.settings.reinitialisation_ttl_seconds
        jeton = JetonReinitialisation(user_id=user.id, token_hash=_hash(token),
                                      expires_at=now + timedelta(seconds=ttl))
        self.jetons.add(jeton)
        await self.session.flush()
        minutes = max(1, ttl // 60)
        self.session.add(Notification(
            membre_id=None, organisation_id=None, type_notification=TYPE_NOTIFICATION, canal="EMAIL",
            adresse=user.email, sujet="Réinitialisation de votre mot de passe UnionFlow",
            corps=((f"Bonjour {user.prenom},\n\n" if user.prenom else "Bonjour,\n\n")
                   + "Une réinitialisation du mot de passe de votre compte UnionFlow a été demandée.\n"
                   f"Pour choisir un nouveau mot de passe, ouvrez ce lien (valable {minutes} minutes, "
                   f"une seule fois):\n\n{self._lien(token)}\n\n"
                   "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message: votre mot de passe "
                   "reste inchangé."),
            statut="EN_ATTENTE", tentatives=0, source_type=JETON_REINITIALISATION, source_id=jeton.id,
            cree_par="systeme"))
        await audit.record(self.session, None, action="DEMANDER_REINITIALISATION", module=MODULE,
                           entite_type="Utilisateur", entite_id=user.id,
                           description=f"Lien de réinitialisation envoyé à {user.email}")

    async def reinitialiser(self, token: str, password: str) -> None:
        jeton = await self.jetons.by_hash_for_update(_hash(token))
        if jeton is None or jeton.used_at is not None or jeton.expires_at <= utcnow():
            raise JetonInvalide()
        user = await self.users.by_id(jeton.user_id)
        if user is None or not user.enabled:
            raise JetonInvalide()
        _check_password(password)
        jeton.used_at = utcnow()
        await _set_password(self.session, user, password)
        await audit.record(self.session, None, action="REINITIALISER_MOT_DE_PASSE", module=MODULE,
                           entite_type="Utilisateur", entite_id=user.id, severite="WARNING",
                           description=f"Mot de passe de {user.email} réinitialisé par lien e-mail; "
                                       "sessions révoquées")


async def reinitialiser_par_cli(session: AsyncSession, email: str, password: str) -> UtilisateurLocal:
    """``unionflow users reset-password``: the operator on the server, the way out of a lost administrator
    password."""
    user = await UtilisateurRepository(session).by_email(email.strip().lower())
    if user is None:
        raise NotFound(f"Aucun compte local pour {email}")
    _check_password(password)
    await _set_password(session, user, password)
    await audit.record(session, None, action="REINITIALISER_MOT_DE_PASSE", module=MODULE,
                       entite_type="Utilisateur", entite_id=user.id, severite="WARNING",
                       description=f"Mot de passe de {user.email} réinitialisé en ligne de commande; "
                                   "sessions révoquées")
    return user
