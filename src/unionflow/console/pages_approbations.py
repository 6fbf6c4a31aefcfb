"""« À approuver » in the console: every pending request the caller may decide, whatever its kind.

The same list as ``GET /api/approbations/a-approuver`` (approbations/service.py), each request linking to the
screen where its kind is decided (payouts and approvals, the books, undo requests), where the decision is taken
with that kind's rules."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.approbations import service as quatre_yeux
from unionflow.console.pages import Ctx, page
from unionflow.core.pagination import PageParams
from unionflow.core.roles import RS_A_APPROUVER

GENRES = {"FINANCE": "Approbation financière", "REOUVERTURE": "Réouverture de période",
          "ANNULATION": "Annulation ou remboursement", "ECRITURE": "Écriture manuelle",
          "A_NOUVEAUX": "Soldes d'ouverture", "EFFACEMENT": "Effacement de données personnelles",
          "OPPOSITION": "Opposition à un traitement de données"}
# Where each kind is decided in the console.
ECRANS = {"FINANCE": "/versements", "REOUVERTURE": "/comptabilite", "ANNULATION": "/annulations",
          "ECRITURE": "/ecritures-a-approuver", "A_NOUVEAUX": "/ecritures-a-approuver"}
MAX_LIGNES = 50


@page("/a-approuver", RS_A_APPROUVER)
async def a_approuver(ctx: Ctx) -> Response:
    found = await quatre_yeux.a_approuver(ctx.db, ctx.auth, PageParams(0, MAX_LIGNES))
    return ctx.render("a_approuver.html", demandes=found.content, total=found.total_elements, genres=GENRES,
                      ecrans=ECRANS)
