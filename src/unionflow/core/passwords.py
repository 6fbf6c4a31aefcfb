from __future__ import annotations

from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from unionflow.config import get_settings

# Verified against when the account does not exist, so that timing does not reveal which e-mails exist.
_DUMMY = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG0pQ3lZWH6e8"


@lru_cache
def hasher() -> PasswordHasher:
    s = get_settings()
    return PasswordHasher(time_cost=s.argon2_time_cost, memory_cost=s.argon2_memory_cost)


def hash_password(password: str) -> str:
    return hasher().hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return hasher().verify(password_hash or _DUMMY, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


# Also the bounds the OpenAPI states for every new password (identity.schemas).
PASSWORD_MIN_LENGTH = 10
PASSWORD_MAX_LENGTH = 256


def check_strength(password: str) -> str | None:
    """Why a new password is refused, or None. Length over composition rules (NIST SP 800-63B)."""
    if len(password) < PASSWORD_MIN_LENGTH:
        return f"le mot de passe doit contenir au moins {PASSWORD_MIN_LENGTH} caractères"
    if len(password) > PASSWORD_MAX_LENGTH:
        return "le mot de passe est trop long"
    return None
