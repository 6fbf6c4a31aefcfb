"""Wave reconciliation in the console: import the statement exported from Wave Business (or read a day
from Wave's API), list the statements, reconcile one, and see its lines (matched, unknown, different amount), our
operations absent from it, and the book balance beside Wave's with the difference.

Role sets are the API's (``RS_TRESORERIE`` to import and reconcile, ``RS_TRESORERIE_READ`` to read: the president
and the auditor ``COMMISSAIRE_AUX_COMPTES`` read). Actions are offered to whoever holds ``wave.rapprocher``; the
service refuses them otherwise.
"""

from __future__ import annotations

import uuid
from datetime import date

from starlette.datastructures import UploadFile
from starlette.responses import Response

from unionflow.console import services_annulations as wave
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, PayloadTooLarge
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.models.wave import StatutLigneReleveWave
from unionflow.paiements.rapprochement_wave.router import MAX_OCTETS_RELEVE

LIGNES = {"RAPPROCHEE": "Rapprochée", "INCONNUE": "Inconnue chez nous", "MONTANT_DIFFERENT": "Montant différent",
          "A_RAPPROCHER": "À rapprocher"}
# Lines shown on a statement's page: those to look at first (unknown, different amount), then the statement's lines
# 30 at a time (a row weighs ~300 bytes: the page stays under 30 KB whatever the statement's size).
MAX_LIGNES = 30


@page("/wave/releves", RS_TRESORERIE_READ)
async def releves(ctx: Ctx) -> Response:
    try:
        numero = max(0, int(ctx.request.query_params.get("page", "0")))
    except ValueError:
        numero = 0
    found = await wave.releves(ctx.db, ctx.auth, numero)
    return ctx.render("releves_wave.html", releves=found, numero=numero, aujourdhui=date.today().isoformat(),
                      peut_importer=ctx.auth.active_organisation_id is not None
                      and RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.WAVE_RAPPROCHER))


@page("/wave/releves", RS_TRESORERIE, methods=("POST",))
async def importer(ctx: Ctx) -> Response:
    assert ctx.form is not None
    organisation_id = ctx.organisation()
    fichier = ctx.form.get("fichier")
    if not isinstance(fichier, UploadFile) or not fichier.filename:
        raise InvalidInput("Choisissez le fichier CSV exporté du portail Wave Business")
    contenu = await fichier.read(MAX_OCTETS_RELEVE + 1)
    if len(contenu) > MAX_OCTETS_RELEVE:
        raise PayloadTooLarge(f"Relevé limité à {MAX_OCTETS_RELEVE // (1024 * 1024)} Mo")
    releve_id = await wave.importer_releve(ctx.db, ctx.auth, ctx.request, organisation_id, fichier.filename,
                                           contenu)
    return redirect(f"/wave/releves/{releve_id}")


@page("/wave/releves/depuis-wave", RS_TRESORERIE, methods=("POST",), again="/wave/releves")
async def importer_jour(ctx: Ctx) -> Response:
    organisation_id = ctx.organisation()
    try:
        jour = date.fromisoformat(ctx.field("date"))
    except ValueError:
        raise InvalidInput("Date invalide: choisissez le jour à lire chez Wave") from None
    releve_id = await wave.importer_jour(ctx.db, ctx.auth, ctx.request, organisation_id, jour)
    return redirect(f"/wave/releves/{releve_id}")


# Booking forms of unknown lines on one page (each carries the chart's accounts): the page stays under 30 KB;
# the next ones show once these are booked.
MAX_FORMULAIRES = 5


@page("/wave/releves/{id}", RS_TRESORERIE_READ)
async def releve(ctx: Ctx) -> Response:
    releve_id = parse_id(ctx.request.path_params["id"])
    detail = await wave.releve(ctx.db, ctx.auth, releve_id)
    a_voir = []
    for statut in (StatutLigneReleveWave.INCONNUE, StatutLigneReleveWave.MONTANT_DIFFERENT):
        a_voir += (await wave.lignes(ctx.db, ctx.auth, releve_id, statut, MAX_LIGNES)).content
    try:
        numero = max(0, int(ctx.request.query_params.get("page", "0")))
    except ValueError:
        numero = 0
    toutes = await wave.lignes(ctx.db, ctx.auth, releve_id, None, MAX_LIGNES, numero)
    peut = RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.WAVE_RAPPROCHER, detail.organisation_id)
    inconnues = [lg for lg in a_voir if lg.statut == StatutLigneReleveWave.INCONNUE][:MAX_FORMULAIRES] if peut else []
    return ctx.render("releve_wave.html", releve=detail, rapprochement=detail.dernier_rapprochement,
                      a_voir=a_voir[:MAX_LIGNES], lignes=toutes, libelles=LIGNES, cle=str(uuid.uuid4()),
                      numero=numero, par_page=MAX_LIGNES, peut_rapprocher=peut, inconnues=inconnues,
                      comptes=await wave.contreparties(ctx.db, ctx.auth, detail.organisation_id) if inconnues else [])


@page("/wave/releves/{id}/rapprocher", RS_TRESORERIE, methods=("POST",), again="/wave/releves/{id}")
async def rapprocher(ctx: Ctx) -> Response:
    releve_id = parse_id(ctx.request.path_params["id"])
    await wave.rapprocher(ctx.db, ctx.auth, ctx.field("idempotency_key"), releve_id)
    return redirect(f"/wave/releves/{releve_id}?fait=rapproche")


@page("/wave/releves/{id}/lignes/{ligne}/comptabiliser", RS_TRESORERIE, methods=("POST",), again="/wave/releves/{id}")
async def comptabiliser_ligne(ctx: Ctx) -> Response:
    releve_id = parse_id(ctx.request.path_params["id"])
    await wave.comptabiliser_ligne(ctx.db, ctx.auth, ctx.field("idempotency_key"), releve_id,
                                   parse_id(ctx.request.path_params["ligne"]), ctx.field("compte"),
                                   ctx.field("libelle"))
    return redirect(f"/wave/releves/{releve_id}?fait=comptabilisee")
