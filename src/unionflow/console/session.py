"""The console's session: the built-in provider's tokens, kept in an encrypted cookie (no server-side store).

Stateless across workers: the cookie is a Fernet token (AES-CBC + HMAC) under a key derived (HKDF) from the
built-in issuer's signing key, which every worker reads from the database. It holds the access and refresh
tokens, the CSRF token of the session and the chosen organisation/role. Rotating the signing key signs everyone
out of the console (their cookie no longer decrypts), as it would invalidate their API tokens anyway.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from starlette.requests import Request
from starlette.responses import Response

from unionflow.auth.repository import SigningKeyRepository
from unionflow.core.db import read_only_session

COOKIE = "uf_console"
LOGIN_CSRF_COOKIE = "uf_console_csrf"
PATH = "/console"
# Derived keys by signing-key id: a pure function of the database's key, so a cache, not session state.
_FERNETS: dict[str, Fernet] = {}
_ACTIVE: dict[str, tuple[float, str]] = {}
ACTIVE_KEY_SECONDS = 60.0


@dataclass
class ConsoleSession:
    access_token: str
    refresh_token: str | None
    expires_at: float
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    organisation_id: str | None = None
    role: str | None = None
    # Signed in at the external OIDC provider (refresh and revocation go there), not the built-in one.
    externe: bool = False


def _derive(pem: str) -> Fernet:
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
               info=b"unionflow console session cookie").derive(pem.encode())
    return Fernet(base64.urlsafe_b64encode(raw))


async def _key(request: Request, kid: str | None) -> tuple[str, Fernet] | None:
    """The key ``kid`` (to read a cookie), or the active one (to write)."""
    if kid is None:
        cached = _ACTIVE.get("kid")
        if cached and cached[0] > time.monotonic():
            kid = cached[1]
    if kid is not None and kid in _FERNETS:
        return kid, _FERNETS[kid]
    async with read_only_session(request.app.state.sessionmaker) as session:
        found = await SigningKeyRepository(session).cle_privee(kid)
    if found is None:
        return None
    found_kid, private_pem = found
    _FERNETS[found_kid] = _derive(private_pem)
    if kid is None:
        _ACTIVE["kid"] = (time.monotonic() + ACTIVE_KEY_SECONDS, found_kid)
    return found_kid, _FERNETS[found_kid]


async def key_for_write(request: Request) -> tuple[str, Fernet] | None:
    """The active key (id and cipher), for another short-lived console cookie (the OIDC flow's)."""
    return await _key(request, None)


async def key_for_read(request: Request, kid: str) -> Fernet | None:
    found = await _key(request, kid)
    return found[1] if found else None


async def read(request: Request) -> ConsoleSession | None:
    raw = request.cookies.get(COOKIE)
    if not raw or "." not in raw:
        return None
    kid, token = raw.split(".", 1)
    found = await _key(request, kid)
    if found is None:
        return None
    try:
        data: dict[str, Any] = json.loads(found[1].decrypt(token.encode()))
        return ConsoleSession(**data)
    except (InvalidToken, ValueError, TypeError):
        return None


def secure(request: Request) -> bool:
    """HTTPS as the client sees it: uvicorn applies X-Forwarded-Proto from the trusted proxies to the scheme."""
    return request.url.scheme == "https"


async def write(request: Request, response: Response, session: ConsoleSession, max_age: int) -> None:
    found = await _key(request, None)
    if found is None:  # No signing key yet: the provider itself cannot sign in anyone either.
        return
    kid, fernet = found
    value = kid + "." + fernet.encrypt(json.dumps(asdict(session)).encode()).decode()
    response.set_cookie(COOKIE, value, max_age=max_age, path=PATH, httponly=True, samesite="lax",
                        secure=secure(request))


def clear(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path=PATH, httponly=True, samesite="lax", secure=secure(request))


def login_csrf(request: Request) -> str:
    """Double-submit token of the sign-in form (no session exists yet): cookie and hidden field must agree."""
    return request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)


def set_login_csrf(request: Request, response: Response, token: str) -> None:
    response.set_cookie(LOGIN_CSRF_COOKIE, token, max_age=3600, path=PATH, httponly=True, samesite="strict",
                        secure=secure(request))


def same(a: str | None, b: str | None) -> bool:
    # Bytes: compare_digest refuses non-ASCII str, and a forged form may carry any character.
    return bool(a) and bool(b) and secrets.compare_digest(str(a).encode(), str(b).encode())
