from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class TokenResponse(BaseModel):
    """OAuth 2.0 token response (RFC 6749 §5.1): snake_case as the protocol defines it."""

    access_token: str
    token_type: str = "Bearer"
    expires_in: int
    # Absent for client_credentials (RFC 6749 §4.4.3: no refresh token; the client asks again).
    refresh_token: str | None = None
    refresh_expires_in: int | None = None
    scope: str = "openid"


class Jwks(BaseModel):
    keys: list[dict[str, Any]] = Field(default_factory=list)
