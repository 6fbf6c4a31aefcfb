from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Delete, Integer, Select, bindparam, delete, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.query import contient
from unionflow.core.repository import SystemRepository
from unionflow.models import JetonReinitialisation, LoginThrottle, RefreshToken, SigningKey, UtilisateurLocal
from unionflow.models.base import UTCDateTime


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

    async def by_id(self, user_id: uuid.UUID, *, for_update: bool = False) -> UtilisateurLocal | None:
        return await self.session.get(UtilisateurLocal, user_id, with_for_update=for_update)

    async def count(self) -> int:
        return int((await self.session.execute(select(func.count()).select_from(UtilisateurLocal))).scalar_one())

    @staticmethod
    def _matching(search: str | None) -> Select[Any]:
        stmt = select(UtilisateurLocal)
        if search:
            stmt = stmt.where(contient(UtilisateurLocal.recherche, search))
        return stmt

    async def search(self, search: str | None, first: int, max_results: int) -> list[UtilisateurLocal]:
        """One page of the accounts whose e-mail, username or name contains ``search``, by e-mail."""
        stmt = self._matching(search).order_by(UtilisateurLocal.email, UtilisateurLocal.id)
        return list((await self.session.execute(stmt.offset(first).limit(max_results))).scalars())

    async def count_matching(self, search: str | None) -> int:
        stmt = self._matching(search).with_only_columns(func.count())
        return int((await self.session.execute(stmt)).scalar_one())

    async def email_or_username_taken(self, email: str | None, username: str | None,
                                      exclude: uuid.UUID | None) -> bool:
        """Whether another account (not ``exclude``) already has this e-mail or this username."""
        conditions = []
        if email:
            conditions.append(UtilisateurLocal.email == email)
        if username:
            conditions.append(UtilisateurLocal.username == username)
        if not conditions:
            return False
        stmt = select(UtilisateurLocal.id).where(or_(*conditions))
        if exclude is not None:
            stmt = stmt.where(UtilisateurLocal.id != exclude)
        return (await self.session.execute(stmt.limit(1))).first() is not None

    async def all_by_email(self) -> list[UtilisateurLocal]:
        """Every local account, by e-mail (``unionflow users list``)."""
        stmt = select(UtilisateurLocal).order_by(UtilisateurLocal.email)
        return list((await self.session.execute(stmt)).scalars())


class RefreshTokenRepository(SystemRepository[RefreshToken]):
    model = RefreshToken

    async def by_hash_for_update(self, token_hash: str) -> RefreshToken | None:
        stmt = select(RefreshToken).where(RefreshToken.token_hash == token_hash).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def vivant(self, token_hash: str, now: datetime) -> bool:
        """Neither revoked nor expired: the session it belongs to is still open."""
        found = await self.session.execute(select(RefreshToken.id).where(
            RefreshToken.token_hash == token_hash, RefreshToken.revoked_at.is_(None), RefreshToken.expires_at > now))
        return found.first() is not None

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


# The upsert of ``increment_failures``, written once for both dialects (same syntax: ON CONFLICT, RETURNING). Not
# built with the dialects' ``insert()``: SQLAlchemy never caches their compilation (their Insert has
# ``inherit_cache = False``: « [no key] » in the engine's log), and compiling it was 9 % of a worker's CPU under the
# USSD bench (py-spy, docs/performance.md). A text statement is compiled once. In each SET, ``window_start`` is the
# row's value before the update, in PostgreSQL and SQLite alike.
_INCREMENT = text("""
    INSERT INTO login_throttle (key, window_start, failures) VALUES (:key, :now, 1)
    ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN login_throttle.window_start <= :expired_before THEN 1
                        ELSE login_throttle.failures + 1 END,
        window_start = CASE WHEN login_throttle.window_start <= :expired_before THEN :now
                            ELSE login_throttle.window_start END
    RETURNING failures, window_start""").bindparams(
    bindparam("now", type_=UTCDateTime()), bindparam("expired_before", type_=UTCDateTime()),
).columns(failures=Integer(), window_start=UTCDateTime())


class LoginThrottleRepository(SystemRepository[LoginThrottle]):
    """The failed-attempt windows of auth/throttle.py's database counters, and their retention."""

    model = LoginThrottle

    async def get_by_key(self, key: str) -> LoginThrottle | None:
        stmt = select(LoginThrottle).where(LoginThrottle.key == key)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def increment_failures(self, key: str, now: datetime, window: int) -> tuple[int, datetime]:
        """One more failure for ``key``: a new window starts at ``now`` when the last one (``window`` seconds)
        has expired. One atomic statement: concurrent failures on several workers never lose a count. Returns the
        count and the start of the window it is in."""
        failures, start = (await self.session.execute(_INCREMENT, {
            "key": key, "now": now, "expired_before": now - timedelta(seconds=window)})).one()
        return int(failures), start

    async def failures_since(self, since: datetime) -> list[tuple[str, int]]:
        """(key, failures) of the windows started since ``since`` (the monitoring's failed-login measure)."""
        stmt = select(LoginThrottle.key, LoginThrottle.failures).where(LoginThrottle.window_start >= since)
        return [(k, int(f or 0)) for k, f in (await self.session.execute(stmt)).all()]

    async def delete_key(self, key: str) -> None:
        await self.session.execute(delete(LoginThrottle).where(LoginThrottle.key == key))

    async def delete_started_before(self, before: datetime, *, inclusive: bool = False) -> int:
        """Expired windows; ``inclusive`` also takes a window that started exactly at ``before``."""
        started = LoginThrottle.window_start <= before if inclusive else LoginThrottle.window_start < before
        return await _deleted(self.session, delete(LoginThrottle).where(started))


class SigningKeyRepository(SystemRepository[SigningKey]):
    """The built-in issuer's signing keys (auth/keys.py creates them)."""

    model = SigningKey

    async def get_active(self) -> SigningKey | None:
        """The newest active key (the one that signs)."""
        stmt = select(SigningKey).where(SigningKey.active.is_(True)).order_by(
            SigningKey.created_at.desc(), SigningKey.kid
        )
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none()

    async def public_jwks(self) -> list[dict[str, Any]]:
        """Every stored key's public JWK (the JWKS the issuer publishes)."""
        return [dict(k) for k in (await self.session.execute(select(SigningKey.public_jwk))).scalars()]

    async def cle_privee(self, kid: str | None) -> tuple[str, str] | None:
        """(kid, private PEM) of the key ``kid``, or of the newest active key when ``kid`` is None (the console
        derives its cookie cipher from it)."""
        stmt = select(SigningKey.kid, SigningKey.private_pem)
        stmt = stmt.where(SigningKey.kid == kid) if kid is not None else stmt.where(
            SigningKey.active.is_(True)).order_by(SigningKey.created_at.desc(), SigningKey.kid).limit(1)
        row = (await self.session.execute(stmt)).first()
        return (row.kid, row.private_pem) if row is not None else None
