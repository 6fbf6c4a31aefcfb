"""The union's accounts for its administration: who, e-mail, the roles held in each organisation (links to that
organisation's bureau, where roles are given and taken), active or blocked, last sign-in when the provider records
it. The list is the API's own (``GET /api/admin/users``: same service, same role set RS-SA, same search), a page
at a time; the organisations' roles come from the member register, linked to the account as core/auth.py links a
person (issuer and subject, or e-mail before the first sign-in). On each row: a provisional password (to change at
the next sign-in) and blocking or unblocking, through ``PUT /api/admin/users/{id}``'s own service (audited).
"""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_organisations import ROLES
from unionflow.core.errors import NotFound
from unionflow.core.pagination import PageParams
from unionflow.core.roles import RS_SA
from unionflow.identity import operations as identity_operations
from unionflow.identity.schemas import UpdateUserRequest
from unionflow.membres.repository import MembreRepository

TAILLE = 25
Appartenance = tuple[uuid.UUID, str, list[str]]


@page("/utilisateurs", RS_SA)
async def utilisateurs(ctx: Ctx) -> Response:
    q = ctx.request.query_params.get("q", "").strip()[:100]
    raw = ctx.request.query_params.get("page", "0")
    numero = min(int(raw), 100_000) if raw.isdigit() else 0
    service = identity_operations.comptes(ctx.request, ctx.db, ctx.auth)
    found = await service.lister(q or None, PageParams(numero, TAILLE))
    rows = await MembreRepository(ctx.db, ctx.auth).appartenances_des_comptes(
        service.issuer or "", [(u.id, u.email) for u in found.content])
    par_compte: dict[str, list[Appartenance]] = {}
    for sub, email, org_id, nom, roles in rows:
        # A member linked by subject is that account's; one not linked yet is the account with his e-mail.
        cle = sub if sub is not None else next((u.id for u in found.content
                                                if (u.email or "").lower() == (email or "").lower()), "")
        par_compte.setdefault(cle, []).append((org_id, nom, [ROLES.get(r, r) for r in roles if r != "MEMBRE"]))
    return ctx.render("utilisateurs.html", comptes=found, appartenances=par_compte, q=q,
                      suite=urlencode({"q": q}) if q else "", fait=ctx.request.query_params.get("fait"),
                      ici=urlencode({k: v for k, v in (("q", q), ("page", str(numero))) if v and v != "0"}))


# What each row's action sends to PUT /api/admin/users/{id}.
ACTIONS = {"reinitialiser": lambda ctx: {"password": ctx.field("password")},
           "bloquer": lambda ctx: {"enabled": False}, "debloquer": lambda ctx: {"enabled": True}}


@page("/utilisateurs/{uid}/{action:str}", RS_SA, methods=("POST",), again=utilisateurs)
async def utilisateur_post(ctx: Ctx) -> Response:
    """The form posts to its own page's address (search and page number kept): refused, the row comes back in
    view with the reason beside its field."""
    action = str(ctx.request.path_params["action"])
    if action not in ACTIONS:
        raise NotFound("Page introuvable")
    data = UpdateUserRequest.model_validate(ACTIONS[action](ctx))
    await identity_operations.comptes(ctx.request, ctx.db, ctx.auth).modifier(ctx.request.path_params["uid"], data)
    ici = {k: v for k, v in ctx.request.query_params.items() if k in ("q", "page")}
    return redirect(f"/utilisateurs?{urlencode({**ici, 'fait': action})}")
