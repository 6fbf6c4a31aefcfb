"""Signing keys of the built-in issuer: created on first start, kept in the database, shared by workers."""

from __future__ import annotations

import json
import secrets
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.auth.repository import SigningKeyRepository
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
    return await SigningKeyRepository(session).get_active()


async def public_jwks(session: AsyncSession) -> list[dict[str, Any]]:
    return await SigningKeyRepository(session).public_jwks()


def jwks_loader(sessionmaker: async_sessionmaker[AsyncSession]) -> Any:
    async def load() -> list[dict[str, Any]]:
        async with read_only_session(sessionmaker) as session:
            return await public_jwks(session)

    return load
