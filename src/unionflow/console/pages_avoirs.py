"""The credit ledger (registre des avoirs) of the active organisation: what it owes each member, beside account
4191 of its books. Read by the treasury, the president and the external auditor (``RS_TRESORERIE_READ``, as
``GET /api/avoirs/registre``); applying a member's credit stays on his page (``avoir.imputer``)."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page
from unionflow.core.roles import RS_TRESORERIE_READ

# One row (~200 bytes) per member holding credit: 100 rows a page keep it under 30 KB.
LIGNES = 100


@page("/avoirs", RS_TRESORERIE_READ)
async def registre(ctx: Ctx) -> Response:
    org = ctx.organisation()
    try:
        numero = max(0, int(ctx.request.query_params.get("page", "0")))
    except ValueError:
        numero = 0
    found = await services.registre_avoirs(ctx.db, ctx.auth, org)
    return ctx.render("avoirs.html", registre=found, lignes=found.lignes[numero * LIGNES:(numero + 1) * LIGNES],
                      numero=numero, suivante=len(found.lignes) > (numero + 1) * LIGNES)
