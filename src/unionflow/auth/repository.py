from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Delete, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import JetonReinitialisation, LoginThrottle, RefreshToken, UtilisateurLocal


async def _deleted(session: AsyncSession, stmt: Delete) -> int:
    """Run a bulk DELETE of the retention job (``nettoyer``) and return how many rows went."""
    result = await session.execute(stmt.execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


class UtilisateurRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def by_email(self, email: str) -> UtilisateurLocal | None:
        stmt = select(UtilisateurLocal).where(UtilisateurLocal.email == email.strip().lower())
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def by_id(self, user_id: uuid.UUID) -> UtilisateurLocal | None:
        return await self.session.get(UtilisateurLocal, user_id)

    async def count(self) -> int:
        from sqlalchemy import func

        return int((await self.session.execute(select(func.count()).select_from(UtilisateurLocal))).scalar_one())

    def add(self, user: UtilisateurLocal) -> None:
        self.session.add(user)

    async def all_by_email(self) -> list[UtilisateurLocal]:
        """Every local account, by e-mail (``unionflow users list``)."""
        stmt = select(UtilisateurLocal).order_by(UtilisateurLocal.email)
        return list((await self.session.execute(stmt)).scalars())


class RefreshTokenRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def by_hash_for_update(self, token_hash: str) -> RefreshToken | None:
        stmt = select(RefreshToken).where(RefreshToken.token_hash == token_hash).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    def add(self, token: RefreshToken) -> None:
        self.session.add(token)

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


class JetonReinitialisationRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def add(self, jeton: JetonReinitialisation) -> None:
        self.session.add(jeton)

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


class LoginThrottleRepository:
    """The retention of the failed-login windows (auth/throttle.py keeps the counters themselves)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def delete_started_before(self, before: datetime) -> int:
        return await _deleted(self.session, delete(LoginThrottle).where(LoginThrottle.window_start < before))
