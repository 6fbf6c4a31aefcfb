from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Delete, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.repository import SystemRepository
from unionflow.models import JetonReinitialisation, LoginThrottle, RefreshToken, SigningKey, UtilisateurLocal


async def _deleted(session: AsyncSession, stmt: Delete) -> int:
    """Run a bulk DELETE of the retention job (``nettoyer``) and return how many rows went."""
    result = await session.execute(stmt.execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


class UtilisateurRepository(SystemRepository[UtilisateurLocal]):
    """The built-in identity provider's accounts, read on the system's behalf (login, token, reset)."""

    model = UtilisateurLocal

    async def by_email(self, email: str) -> UtilisateurLocal | None:
        stmt = select(UtilisateurLocal).where(UtilisateurLocal.email == email.strip().lower())
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def by_id(self, user_id: uuid.UUID) -> UtilisateurLocal | None:
        return await self.session.get(UtilisateurLocal, user_id)

    async def count(self) -> int:
        return int((await self.session.execute(select(func.count()).select_from(UtilisateurLocal))).scalar_one())


    async def all_by_email(self) -> list[UtilisateurLocal]:
        """Every local account, by e-mail (``unionflow users list``)."""
        stmt = select(UtilisateurLocal).order_by(UtilisateurLocal.email)
        return list((await self.session.execute(stmt)).scalars())


class RefreshTokenRepository(SystemRepository[RefreshToken]):
    model = RefreshToken

    async def by_hash_for_update(self, token_hash: str) -> RefreshToken | None:
        stmt = select(RefreshToken).where(RefreshToken.token_hash == token_hash).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def revoke_family(self, family_id: uuid.UUID, when: datetime) -> None:
        await self.session.execute(
            update(RefreshToken)
            .where(RefreshToken.family_id == family_id, RefreshToken.revoked_at.is_(None))
            .values(revoked_at=when)
        )

    async def revoke_user(self, user_id: uuid.UUID, when: datetime) -> None:
        await self.session.execute(
            update(RefreshToken)
            .where(RefreshToken.user_id == user_id, RefreshToken.revoked_at.is_(None))
            .values(revoked_at=when)
        )

    async def delete_expired(self, before: datetime) -> int:
        return await _deleted(self.session, delete(RefreshToken).where(RefreshToken.expires_at < before))


class JetonReinitialisationRepository(SystemRepository[JetonReinitialisation]):
    model = JetonReinitialisation

    async def by_hash_for_update(self, token_hash: str) -> JetonReinitialisation | None:
        stmt = select(JetonReinitialisation).where(JetonReinitialisation.token_hash == token_hash).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def invalidate_user(self, user_id: uuid.UUID, when: datetime) -> None:
        """Spend every unused token of the account: only the latest link works, and none after a reset."""
        await self.session.execute(
            update(JetonReinitialisation)
            .where(JetonReinitialisation.user_id == user_id, JetonReinitialisation.used_at.is_(None))
            .values(used_at=when)
        )

    async def delete_expired(self, before: datetime) -> int:
        return await _deleted(self.session, delete(JetonReinitialisation).where(
            JetonReinitialisation.expires_at < before))


class LoginThrottleRepository(SystemRepository[LoginThrottle]):
    """The retention of the failed-login windows (auth/throttle.py keeps the counters themselves)."""

    model = LoginThrottle

    async def delete_started_before(self, before: datetime) -> int:
        return await _deleted(self.session, delete(LoginThrottle).where(LoginThrottle.window_start < before))


class CleSignatureRepository(SystemRepository[SigningKey]):
    """The built-in issuer's signing keys, read on the system's behalf (the console derives its cookie cipher
    from them)."""

    model = SigningKey

    async def cle_privee(self, kid: str | None) -> tuple[str, str] | None:
        """(kid, private PEM) of the key ``kid``, or of the newest active key when ``kid`` is None."""
        stmt = select(SigningKey.kid, SigningKey.private_pem)
        stmt = stmt.where(SigningKey.kid == kid) if kid is not None else stmt.where(
            SigningKey.active.is_(True)).order_by(SigningKey.created_at.desc(), SigningKey.kid).limit(1)
        row = (await self.session.execute(stmt)).first()
        return (row.kid, row.private_pem) if row is not None else None
