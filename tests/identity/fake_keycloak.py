"""A small Keycloak stand-in speaking the documented Admin REST API and token endpoint, with in-memory state.

Only what UnionFlow uses: client-credentials and password grants, users (search/first/max, count, create with
``Location``, get, partial update), realm roles, realm role mappings, reset-password and logout.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections import Counter
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

TECHNICAL_ROLES = ["offline_access", "uma_authorization"]
UNIONFLOW_ROLES = ["SUPER_ADMIN", "ADMIN", "ADMIN_ORGANISATION", "MEMBRE", "USER", "MODERATEUR", "TRESORIER",
                   "PRESIDENT", "SECRETAIRE", "ORGANISATEUR_EVENEMENT"]


class FakeKeycloak:
    def __init__(self, realm: str = "unionflow", client_id: str = "unionflow-admin",
                 client_secret: str = "s3cret") -> None:
        self.realm = realm
        self.client_id = client_id
        self.client_secret = client_secret
        self.default_role = f"default-roles-{realm}"
        self.roles: dict[str, dict[str, Any]] = {
            name: {"id": str(uuid.uuid4()), "name": name, "description": f"rôle {name}", "composite": False,
                   "clientRole": False, "containerId": realm}
            for name in [*UNIONFLOW_ROLES, *TECHNICAL_ROLES, self.default_role]
        }
        self.users: dict[str, dict[str, Any]] = {}
        self.passwords: dict[str, str] = {}
        self.temporary: dict[str, bool] = {}
        self.mappings: dict[str, set[str]] = {}
        self.tokens: set[str] = set()
        self.logouts: list[str] = []
        self.hits: Counter[str] = Counter()
        self.fail_with: int | None = None
        self.direct_grants = True
        prefix = f"/admin/realms/{realm}"
        self.app = Starlette(routes=[
            Route(f"/realms/{realm}/protocol/openid-connect/token", self.token, methods=["POST"]),
            Route(f"{prefix}/users", self.list_users, methods=["GET"]),
            Route(f"{prefix}/users", self.create_user, methods=["POST"]),
            Route(f"{prefix}/users/count", self.count_users, methods=["GET"]),
            Route(f"{prefix}/users/{{id}}", self.get_user, methods=["GET"]),
            Route(f"{prefix}/users/{{id}}", self.update_user, methods=["PUT"]),
            Route(f"{prefix}/users/{{id}}/role-mappings/realm", self.role_mappings,
                  methods=["GET", "POST", "DELETE"]),
            Route(f"{prefix}/users/{{id}}/reset-password", self.reset_password, methods=["PUT"]),
            Route(f"{prefix}/users/{{id}}/logout", self.logout, methods=["POST"]),
            Route(f"{prefix}/roles", self.list_roles, methods=["GET"]),
        ])
        self.app.router.routes.append(
            Route(f"/realms/{realm}/protocol/openid-connect/certs", self.certs, methods=["GET"]))
        self.base_url = ""
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "fake-kc-" + secrets.token_hex(4)

    @property
    def issuer(self) -> str:
        return f"{self.base_url}/realms/{self.realm}"

    def issue_token(self, user_id: str, audience: str = "unionflow-api", ttl: int = 300) -> str:
        """An access token as Keycloak signs it, realm roles in ``realm_access.roles``."""
        user = self.users[user_id]
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": audience, "sub": user_id, "iat": now, "exp": now + ttl,
                  "preferred_username": user["username"], "email": user.get("email"),
                  "realm_access": {"roles": sorted(self.mappings[user_id])}}
        return jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid})

    async def certs(self, request: Request) -> Response:
        self.hits["certs"] += 1
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": "RS256"})
        return JSONResponse({"keys": [jwk]})

    # Helpers for tests
    def add_user(self, username: str, password: str | None = None, roles: list[str] | None = None,
                 **fields: Any) -> str:
        user_id = str(uuid.uuid4())
        self.users[user_id] = {"id": user_id, "username": username.lower(), "enabled": True,
                               "emailVerified": False, "createdTimestamp": int(time.time() * 1000), **fields}
        if password:
            self.passwords[user_id] = password
        self.mappings[user_id] = {self.default_role, *(roles or [])}
        return user_id

    def _guard(self, request: Request) -> Response | None:
        self.hits[f"{request.method} {request.url.path}"] += 1
        if self.fail_with is not None:
            return JSONResponse({"error": "boom"}, status_code=self.fail_with)
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.tokens:
            return JSONResponse({"error": "HTTP 401 Unauthorized"}, status_code=401)
        return None

    def _user(self, user_id: str) -> dict[str, Any] | None:
        return self.users.get(user_id)

    async def token(self, request: Request) -> Response:
        self.hits["token"] += 1
        if self.fail_with is not None:
            return JSONResponse({"error": "boom"}, status_code=self.fail_with)
        form = await request.form()
        if form.get("client_id") != self.client_id or form.get("client_secret") != self.client_secret:
            return JSONResponse({"error": "unauthorized_client"}, status_code=401)
        grant = form.get("grant_type")
        if grant == "password":
            if not self.direct_grants:
                return JSONResponse({"error": "unauthorized_client",
                                     "error_description": "Client not allowed for direct access grants"},
                                    status_code=400)
            match = [u for u in self.users.values() if u["username"] == str(form.get("username", "")).lower()]
            if not match or self.passwords.get(match[0]["id"]) != form.get("password") or not match[0]["enabled"]:
                return JSONResponse({"error": "invalid_grant", "error_description": "Invalid user credentials"},
                                    status_code=401)
            return JSONResponse({"access_token": secrets.token_hex(8), "expires_in": 300})
        if grant != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        token = secrets.token_hex(16)
        self.tokens.add(token)
        return JSONResponse({"access_token": token, "expires_in": 300, "token_type": "Bearer"})

    def _matching(self, search: str | None) -> list[dict[str, Any]]:
        users = sorted(self.users.values(), key=lambda u: u["username"])
        if not search:
            return users
        needle = search.lower().strip("*")
        return [u for u in users if any(needle in str(u.get(k) or "").lower()
                                        for k in ("username", "email", "firstName", "lastName"))]

    async def list_users(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        first = int(request.query_params.get("first", 0))
        maximum = int(request.query_params.get("max", 100))
        return JSONResponse(self._matching(request.query_params.get("search"))[first:first + maximum])

    async def count_users(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        return JSONResponse(len(self._matching(request.query_params.get("search"))))

    async def create_user(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        rep = await request.json()
        username = str(rep.get("username", "")).lower()
        if any(u["username"] == username for u in self.users.values()):
            return JSONResponse({"errorMessage": "User exists with same username"}, status_code=409)
        if rep.get("email") and any(u.get("email") == rep["email"] for u in self.users.values()):
            return JSONResponse({"errorMessage": "User exists with same email"}, status_code=409)
        credentials = rep.pop("credentials", None) or []
        user_id = self.add_user(username, **{k: v for k, v in rep.items() if k != "username"})
        for credential in credentials:
            if credential.get("type") == "password":
                self.passwords[user_id] = credential["value"]
        location = f"{request.base_url}admin/realms/{self.realm}/users/{user_id}"
        return Response(status_code=201, headers={"Location": location})

    async def get_user(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        user = self._user(request.path_params["id"])
        if user is None:
            return JSONResponse({"error": "User not found"}, status_code=404)
        return JSONResponse(user)

    async def update_user(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        user = self._user(request.path_params["id"])
        if user is None:
            return JSONResponse({"error": "User not found"}, status_code=404)
        rep = await request.json()
        if rep.get("username") and rep["username"] != user["username"]:
            return JSONResponse({"errorMessage": "error-user-attribute-read-only"}, status_code=400)
        user.update({k: v for k, v in rep.items() if k not in ("id", "credentials")})
        return Response(status_code=204)

    async def list_roles(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        return JSONResponse(list(self.roles.values()))

    async def role_mappings(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        user_id = request.path_params["id"]
        if self._user(user_id) is None:
            return JSONResponse({"error": "User not found"}, status_code=404)
        if request.method == "GET":
            return JSONResponse([self.roles[n] for n in sorted(self.mappings[user_id])])
        reps = await request.json()
        for rep in reps:
            role = self.roles.get(rep.get("name"))
            if role is None or role["id"] != rep.get("id"):
                return JSONResponse({"error": "Role not found"}, status_code=404)
        names = {rep["name"] for rep in reps}
        if request.method == "POST":
            self.mappings[user_id] |= names
        else:
            self.mappings[user_id] -= names
        return Response(status_code=204)

    async def reset_password(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        user_id = request.path_params["id"]
        if self._user(user_id) is None:
            return JSONResponse({"error": "User not found"}, status_code=404)
        body = await request.json()
        if body.get("type") != "password" or not isinstance(body.get("temporary"), bool) or not body.get("value"):
            return JSONResponse({"error": "invalid credential"}, status_code=400)
        self.passwords[user_id] = body["value"]
        # Keycloak then requires the UPDATE_PASSWORD action at the next sign-in.
        self.temporary[user_id] = body["temporary"]
        return Response(status_code=204)

    async def logout(self, request: Request) -> Response:
        if denied := self._guard(request):
            return denied
        if self._user(request.path_params["id"]) is None:
            return JSONResponse({"error": "User not found"}, status_code=404)
        self.logouts.append(request.path_params["id"])
        return Response(status_code=204)
