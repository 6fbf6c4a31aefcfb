"""The organisation's treasuries in the console: each cash box, bank and Wave account with its balance in
the books, and a form for an internal transfer (cash deposited at the bank, Wave withdrawn to cash), through the
same service as the API. Role sets are the API's; the form is offered to whoever holds ``tresorerie.gerer``."""

from __future__ import annotations

import re
import uuid
from datetime import date

from starlette.responses import Response

from unionflow.console import services_tresoreries as tresoreries
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.tresoreries.schemas import TresorerieResponse

TYPES = {"CAISSE": "Caisse", "BANQUE": "Banque", "WAVE": "Wave", "ORANGE_MONEY": "Orange Money",
         "FREE_MONEY": "Free Money"}


def _numero_vir(value: str) -> str:
    """The transfer number shown after a redirect, only if it looks like one (nothing else is echoed)."""
    return value if re.fullmatch(r"VIR-\d{4}-\d{6}", value) else ""



def _sens(found: list[TresorerieResponse]) -> tuple[str, str, str]:
    """The transfer the form proposes: the everyday one, cash deposited at the bank (the first active cash box to
    the first active bank), under the label that says so; otherwise the first two active treasuries."""
    actives = [t for t in found if t.actif]
    caisse = next((t for t in actives if t.type == "CAISSE"), None)
    banque = next((t for t in actives if t.type == "BANQUE"), None)
    if caisse is not None and banque is not None:
        return str(caisse.id), str(banque.id), "Dépôt de la caisse à la banque"
    if len(actives) < 2:
        return "", "", ""
    return str(actives[0].id), str(actives[1].id), f"Virement de {actives[0].nom} vers {actives[1].nom}"


@page("/tresoreries", RS_TRESORERIE_READ)
async def liste(ctx: Ctx) -> Response:
    organisation_id = ctx.organisation()
    found = await tresoreries.tresoreries(ctx.db, ctx.auth, organisation_id)
    source, destination, libelle = _sens(found)
    return ctx.render("tresoreries.html", tresoreries=found, types=TYPES,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()),
                      source=ctx.typed("source", source), destination=ctx.typed("destination", destination),
                      libelle=ctx.typed("libelle", libelle),
                      fait=_numero_vir(ctx.request.query_params.get("fait", "")),
                      peut_virer=RS_TRESORERIE.allows(ctx.auth.roles)
                      and ctx.can(Permission.TRESORERIE_GERER, organisation_id)
                      and sum(1 for t in found if t.actif) >= 2)


@page("/tresoreries/virements", RS_TRESORERIE, methods=("POST",), again="/tresoreries")
async def virer(ctx: Ctx) -> Response:
    organisation_id = ctx.organisation()
    montant = ctx.montant()
    try:
        jour = date.fromisoformat(ctx.field("date")) if ctx.field("date") else None
    except ValueError:
        raise InvalidInput("Date invalide") from None
    numero = await tresoreries.virer(ctx.db, ctx.auth, ctx.field("idempotency_key"), organisation_id,
                                     parse_id(ctx.field("source")), parse_id(ctx.field("destination")), montant,
                                     jour, ctx.field("libelle"))
    return redirect(f"/tresoreries?fait={numero}")
