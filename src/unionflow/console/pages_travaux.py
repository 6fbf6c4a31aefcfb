"""Long work from the console (dues generation, exports): small results come at once, larger ones become a task
whose page shows the progress and the link to the result. Role sets: the API's (``RS_COTISATION_GENERER``,
``RS_EXPORT_MEMBRES`` / ``RS_EXPORT_TRESORERIE``)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.configuration.organisation_service import valeur_organisation
from unionflow.configuration.service import BAREME
from unionflow.console import services_travaux
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_comptabilite import parse_date
from unionflow.core.errors import Forbidden, InvalidInput, NotFound, schema_error
from unionflow.core.roles import RS_COTISATION_GENERER, RS_EXPORT_MEMBRES, RS_EXPORT_TRESORERIE
from unionflow.cotisations.schemas import GenererCotisationsRequest
from unionflow.export.formats import FormatExport
from unionflow.models.cotisation import TypeCotisation
from unionflow.tasks.schemas import TacheResponse

TYPES = (("MENSUELLE", "Mensuelle"), ("TRIMESTRIELLE", "Trimestrielle"), ("SEMESTRIELLE", "Semestrielle"),
         ("ANNUELLE", "Annuelle"), ("EXCEPTIONNELLE", "Exceptionnelle"))
EXPORTS = {"membres": ("Registre des membres", RS_EXPORT_MEMBRES),
           "cotisations": ("Cotisations", RS_EXPORT_TRESORERIE), "paiements": ("Paiements", RS_EXPORT_TRESORERIE)}



async def _bareme(ctx: Ctx) -> dict[str, Decimal]:
    """The active organisation's dues scale (type → amount per member), offered by the form; empty if none."""
    org = ctx.auth.active_organisation_id
    if org is None:
        return {}
    found = {t: Decimal(str(await valeur_organisation(ctx.db, org, f"cotisations.bareme.{t.lower()}") or 0))
             for t in BAREME}
    return {t: montant for t, montant in found.items() if montant > 0}


@page("/cotisations/generer", RS_COTISATION_GENERER)
async def generer_form(ctx: Ctx) -> Response:
    today = date.today()
    return ctx.render("generer.html", types=TYPES, annee=today.year, mois=today.month, resultat=None,
                      bareme=await _bareme(ctx))


@page("/cotisations/generer", RS_COTISATION_GENERER, methods=("POST",))
async def generer(ctx: Ctx) -> Response:
    try:
        data = GenererCotisationsRequest(
            organisation_id=ctx.organisation(), type_cotisation=TypeCotisation(ctx.field("type")),
            annee=int(ctx.field("annee") or 0), mois=int(ctx.field("mois")) if ctx.field("mois") else None,
            montant=ctx.montant(), date_echeance=parse_date(ctx.field("echeance"), "Échéance"),
            libelle=ctx.field("libelle") or None)
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:
        raise InvalidInput("Type, année ou mois invalide") from None
    resultat = await services_travaux.generer(ctx.db, ctx.auth, ctx.request, data)
    if isinstance(resultat, TacheResponse):  # many members: a background task, its page follows it
        return redirect(f"/taches/{resultat.id}")
    return ctx.render("generer.html", types=TYPES, annee=data.annee, mois=data.mois, resultat=resultat)


# RS-EXPORT-MEMBRES holds every role of RS-EXPORT-TRESORERIE (and the secretary): the page admits the union of
# both, each export then applies its own API role set.
@page("/exports", RS_EXPORT_MEMBRES)
async def exports(ctx: Ctx) -> Response:
    offerts = [(nom, libelle) for nom, (libelle, role_set) in EXPORTS.items() if role_set.allows(ctx.auth.roles)]
    return ctx.render("exports.html", exports=offerts)


@page("/exports/{nom}", RS_EXPORT_MEMBRES)
async def exporter(ctx: Ctx) -> Response:
    services_travaux.ecrit_audit()
    nom = ctx.request.path_params["nom"]
    if nom not in EXPORTS:
        raise NotFound("Export introuvable")
    if not EXPORTS[nom][1].allows(ctx.auth.roles):  # the API's role set of this export
        raise Forbidden("Votre rôle ne donne pas accès à cet export")
    try:
        fmt = FormatExport(ctx.request.query_params.get("format", "csv"))
    except ValueError:
        raise InvalidInput("Format: csv ou xlsx") from None
    result = await services_travaux.exporter(ctx.db, ctx.auth, ctx.request, nom, ctx.organisation(), fmt)
    if isinstance(result, TacheResponse):
        return redirect(f"/taches/{result.id}")
    return result
