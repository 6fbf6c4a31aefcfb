"""The organisation's income account per kind of income in the console: what each kind is credited to, the form
the treasurer or the organisation's administrator chooses with, and the SYCEBNL numbering in one act — through the
API's own service (CompteProduitService: the permission, the class-7 checks, the audit)."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.comptabilite.produits.comptes import COMPTE_PRODUIT_SYCEBNL, LIBELLE_NATURE
from unionflow.comptabilite.produits.schemas import UpdateComptesProduitsRequest
from unionflow.comptabilite.produits.service import CompteProduitService
from unionflow.comptabilite.service import ComptabiliteService
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_installation import _organisation
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE_READ
from unionflow.models.recette import NatureRecette


@page("/organisations/{id}/comptes-produits", RS_TRESORERIE_READ)
async def comptes_produits(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    lus = await CompteProduitService(ctx.db, ctx.auth).lire(org.id)
    comptes = [c for c in await ComptabiliteService(ctx.db, ctx.auth).lister_comptes(org.id, 7) if c.actif]
    choisis = {c.nature.value: ctx.typed(f"compte_{c.nature.value}", "" if c.par_defaut else c.numero_compte)
               for c in lus}
    return ctx.render("organisation_comptes_produits.html", organisation=org, lus=lus, comptes=comptes,
                      choisis=choisis, libelles=LIBELLE_NATURE, sycebnl=COMPTE_PRODUIT_SYCEBNL,
                      deja_sycebnl=all(c.numero_compte == COMPTE_PRODUIT_SYCEBNL[c.nature] for c in lus),
                      gerer=ctx.can(Permission.COMPTABILITE_ECRIRE, org.id),
                      fait=ctx.request.query_params.get("fait"))


@page("/organisations/{id}/comptes-produits", RS_TRESORERIE_READ, methods=("POST",), again=comptes_produits)
async def comptes_produits_post(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    # Every kind is in the form: an empty choice is the default account (``numeroCompte: null``).
    data = UpdateComptesProduitsRequest.model_validate({"comptes": [
        {"nature": nature.value, "numeroCompte": ctx.field(f"compte_{nature.value}") or None}
        for nature in NatureRecette]})
    await CompteProduitService(ctx.db, ctx.auth).definir(org.id, data)
    return redirect(f"/organisations/{org.id}/comptes-produits?fait=choisi")


@page("/organisations/{id}/comptes-produits/sycebnl", RS_TRESORERIE_READ, methods=("POST",),
      again=comptes_produits)
async def comptes_produits_sycebnl(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    await CompteProduitService(ctx.db, ctx.auth).adopter_sycebnl(org.id)
    return redirect(f"/organisations/{org.id}/comptes-produits?fait=sycebnl")
