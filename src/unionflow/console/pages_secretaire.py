"""Secretary: the register with its search, the member import (dry run shown line by line, then the real run),
memberships to approve. Role sets: the API's for the same operations."""

from __future__ import annotations

import base64
import binascii

from starlette.datastructures import UploadFile
from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, PayloadTooLarge
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_APPROVE, RS_MEMBRE_READ, RS_MEMBRE_WRITE, RS_READ
from unionflow.tasks.schemas import TacheResponse

# The file travels back in the confirmation form (no server-side store): kept small; the API takes larger ones.
CONSOLE_IMPORT_MAX = 1024 * 1024


@page("/membres", RS_MEMBRE_READ)
async def membres(ctx: Ctx) -> Response:
    q = ctx.request.query_params.get("q", "").strip()[:100]
    try:
        numero = max(0, int(ctx.request.query_params.get("page", "0")))
    except ValueError:
        numero = 0
    found = await services.membres(ctx.db, ctx.auth, q, numero)
    return ctx.render("membres.html", q=q, resultats=found,
                      peut_importer=ctx.can(Permission.MEMBRE_GERER) and RS_MEMBRE_WRITE.allows(ctx.auth.roles))


@page("/import", RS_MEMBRE_WRITE)
async def import_form(ctx: Ctx) -> Response:
    return ctx.render("import.html", rapport=None, contenu=None)


@page("/import", RS_MEMBRE_WRITE, methods=("POST",))
async def import_post(ctx: Ctx) -> Response:
    """First post: the file, simulated. Second post (``contenu`` carried back): the real run of the same bytes."""
    assert ctx.form is not None
    organisation_id = ctx.auth.active_organisation_id
    if organisation_id is None:
        raise InvalidInput("Choisissez l'organisation dans laquelle importer")
    fichier = ctx.form.get("fichier")
    if isinstance(fichier, UploadFile) and fichier.filename:
        contenu = await fichier.read(CONSOLE_IMPORT_MAX + 1)
        simulation = True
    else:
        try:
            contenu = base64.b64decode(ctx.field("contenu"), validate=True)
        except binascii.Error:
            raise InvalidInput("Fichier manquant: choisissez le fichier à importer") from None
        simulation = False
    if not contenu:
        raise InvalidInput("Fichier manquant ou vide: choisissez le fichier à importer")
    if len(contenu) > CONSOLE_IMPORT_MAX:
        raise PayloadTooLarge("Fichier de plus de 1 Mo: importez-le par l'API (POST /api/membres/import), qui le "
                              "confie à une tâche de fond")
    rapport = await services.importer(ctx.db, ctx.auth, ctx.request, organisation_id, contenu, simulation)
    if isinstance(rapport, TacheResponse):  # a large real run: the task's page follows its progress
        return redirect(f"/taches/{rapport.id}")
    return ctx.render("import.html", rapport=rapport,
                      contenu=base64.b64encode(contenu).decode() if simulation else None)


@page("/adhesions", RS_READ)
async def adhesions(ctx: Ctx) -> Response:
    found = await services.adhesions_en_attente(ctx.db, ctx.auth)
    rows = [(a, ctx.can(Permission.ADHESION_DECIDER, a.organisation_id)) for a in found.content]
    return ctx.render("adhesions.html", adhesions=rows, peut_decider=RS_APPROVE.allows(ctx.auth.roles))


@page("/adhesions/{id}/approuver", RS_APPROVE, methods=("POST",), again="/adhesions")
async def approuver(ctx: Ctx) -> Response:
    await services.approuver_adhesion(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]))
    return redirect("/adhesions")


@page("/adhesions/{id}/rejeter", RS_APPROVE, methods=("POST",), again="/adhesions")
async def rejeter(ctx: Ctx) -> Response:
    motif = ctx.field("motif")
    if not motif:
        raise InvalidInput("Indiquez le motif du rejet")
    await services.rejeter_adhesion(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]), motif)
    return redirect("/adhesions")
