"""Forged or broken tokens are refused with 401 and a Bearer challenge."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from unionflow.auth import keys

URL = "/api/status"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    return ".".join([_b64(json.dumps(header).encode()), _b64(json.dumps(claims).encode()), _b64(signature)])


@pytest.fixture
async def signing(db, settings):
    key = await keys.active_key(db)
    assert key is not None
    now = int(time.time())
    claims = {"iss": settings.issuer, "aud": settings.token_audience, "sub": "forger", "iat": now,
              "exp": now + 300, "realm_access": {"roles": ["SUPER_ADMIN", "ADMIN"]}}
    return key, claims


def _forgeries(key, claims: dict[str, Any]) -> dict[str, str]:
    private = serialization.load_pem_private_key(key.private_pem.encode(), password=None)
    public_pem = private.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)

    def signed(changes: dict[str, Any], drop: tuple[str, ...] = (), kid: str | None = key.kid) -> str:
        body = {k: v for k, v in {**claims, **changes}.items() if k not in drop}
        return jwt.encode(body, key.private_pem, algorithm="RS256", headers={"kid": kid} if kid else None)

    hs_header = {"alg": "HS256", "typ": "JWT", "kid": key.kid}
    signing_input = ".".join([_b64(json.dumps(hs_header).encode()), _b64(json.dumps(claims).encode())])
    hs_signature = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return {
        "expired": signed({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}),
        "wrong issuer": signed({"iss": "https://idp.attacker.example"}),
        "wrong audience": signed({"aud": "another-api"}),
        "missing sub": signed({}, drop=("sub",)),
        "missing exp": signed({}, drop=("exp",)),
        "alg none": _unsigned({"alg": "none", "typ": "JWT", "kid": key.kid}, claims),
        "HS256 with the public key": signing_input + "." + _b64(hs_signature),
        "unknown kid": signed({}, kid="kid-inconnu"),
        "garbage": "ceci.n'est.pas-un-jeton",
        "not a jwt": "abc",
        "another RSA key": jwt.encode(claims, other, algorithm="RS256", headers={"kid": key.kid}),
        "tampered payload": _tamper(signed({}), {"realm_access": {"roles": ["SUPER_ADMIN"]}, "sub": "x"}),
    }


def _tamper(token: str, claims: dict[str, Any]) -> str:
    header, _payload, signature = token.split(".")
    return ".".join([header, _b64(json.dumps(claims).encode()), signature])


async def test_valid_token_is_the_control(client, signing):
    key, claims = signing
    token = jwt.encode(claims, key.private_pem, algorithm="RS256", headers={"kid": key.kid})
    assert (await client.get(URL, headers={"Authorization": f"Bearer {token}"})).status_code == 200


async def test_forged_tokens_are_refused(client, signing):
    key, claims = signing
    failures = {}
    for name, token in _forgeries(key, claims).items():
        response = await client.get(URL, headers={"Authorization": f"Bearer {token}"})
        if response.status_code != 401 or not response.headers.get("WWW-Authenticate", "").startswith("Bearer"):
            failures[name] = (response.status_code, response.text)
        else:
            assert response.headers["content-type"].startswith("application/problem+json")
    assert not failures


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Token abc"])
async def test_wrong_authorization_schemes(client, header):
    response = await client.get(URL, headers={"Authorization": header})
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Bearer")
