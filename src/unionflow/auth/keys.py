"""Signing keys of the built-in issuer: created on first start, kept in the database, shared by workers."""

from __future__ import annotations

import json
import secrets
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core.db import read_only_session
from unionflow.models import SigningKey


def _new_key() -> SigningKey:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    kid = secrets.token_urlsafe(12)
    jwk: dict[str, Any] = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    jwk.update({"kid": kid, "use": "sig", "alg": "RS256"})
    return SigningKey(kid=kid, private_pem=pem, public_jwk=jwk, active=True)


async def ensure_signing_key(session: AsyncSession) -> SigningKey:
    key = await active_key(session)
    if key is None:
        key = _new_key()
        session.add(key)
        await session.flush()
    return key


async def active_key(session: AsyncSession) -> SigningKey | None:
    stmt = select(SigningKey).where(SigningKey.active.is_(True)).order_by(
        SigningKey.created_at.desc(), SigningKey.kid
    )
    return (await session.execute(stmt.limit(1))).scalar_one_or_none()


async def public_jwks(session: AsyncSession) -> list[dict[str, Any]]:
    return [dict(k) for k in (await session.execute(select(SigningKey.public_jwk))).scalars()]


def jwks_loader(sessionmaker: async_sessionmaker[AsyncSession]) -> Any:
    async def load() -> list[dict[str, Any]]:
        async with read_only_session(sessionmaker) as session:
            return await public_jwks(session)

    return load
