"""Personal data in the console (Loi 2008-12): the member's « Mes données » (his consents, given and withdrawn, his
oppositions to processings, asked and withdrawn, and who read his file), the secretariat's paper consent on a
member's page, the data-protection officer's access log of his organisation's files, and the register of
processings (table and PDF, each processing's CDP récépissé or « non déclaré », and the form recording one), and the
consent form the secretariat prints for a member to sign. Through the API's services."""

from __future__ import annotations

import uuid

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_comptabilite import parse_date
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import settings_of
from unionflow.core.errors import InvalidInput
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.core.roles import (
    RS_ACCES_DOSSIER_ORGANISATION,
    RS_COMPTE_ADHERENT,
    RS_CONSENTEMENT,
    RS_REGISTRE_TRAITEMENTS,
)
from unionflow.donnees_membre.opposition_service import OppositionService, opposables
from unionflow.donnees_membre.schemas import CreateOppositionRequest
from unionflow.donnees_personnelles.acces_service import AccesDossierService
from unionflow.donnees_personnelles.formulaire import formulaire
from unionflow.donnees_personnelles.notices import VERSION
from unionflow.donnees_personnelles.registre_service import RegistreService
from unionflow.donnees_personnelles.schemas import CreateConsentementRequest, CreateRecepisseTraitementRequest
from unionflow.donnees_personnelles.service import ConsentementService, notices
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.models.donnees_personnelles import CanalConsentement, FinaliteConsentement


def _choix(ctx: Ctx, query: bool = False) -> tuple[FinaliteConsentement, uuid.UUID]:
    """The purpose and organisation chosen: in the posted form, or in the query of a GET form (``query``)."""
    lire = ctx.request.query_params.get if query else ctx.field
    finalite = lire("finalite") or ""
    if finalite not in FinaliteConsentement.__members__:
        raise InvalidInput("finalite: choisissez une finalité")
    return FinaliteConsentement(finalite), parse_id(lire("organisation") or "")



def _consentements(ctx: Ctx) -> ConsentementService:
    return ConsentementService(ctx.db, ctx.auth, settings_of(ctx.request))


def _registre(ctx: Ctx) -> RegistreService:
    return RegistreService(ctx.db, ctx.auth, settings_of(ctx.request))

def _demande(ctx: Ctx, membre_id: uuid.UUID | None, canal: CanalConsentement) -> CreateConsentementRequest:
    finalite, organisation_id = _choix(ctx)
    # The version in force: the text itself is rendered again for the organisation chosen, as shown on the page.
    return CreateConsentementRequest(membre_id=membre_id, organisation_id=organisation_id, finalite=finalite,
                                     canal=canal, notice_version=VERSION)


@page("/moi/donnees", RS_COMPTE_ADHERENT)
async def mes_donnees(ctx: Ctx) -> Response:
    consentements = await _consentements(ctx).miens()
    acces = await AccesDossierService(ctx.db, ctx.auth).miens(PageParams(0, 50))
    assert ctx.auth.membre_id is not None  # miens() answered 404 otherwise
    organisations = await AppartenanceService(ctx.db, ctx.auth).lister(ctx.auth.membre_id)
    return ctx.render("mes_donnees.html", consentements=consentements, acces=acces,
                      notices=await notices(ctx.db, ctx.auth, settings_of(ctx.request), None),
                      organisations={a.organisation_id: a.organisation_nom for a in organisations},
                      finalites=list(FinaliteConsentement), fait=ctx.request.query_params.get("fait"),
                      oppositions=await OppositionService(ctx.db, ctx.auth).miennes(), opposables=opposables())


@page("/moi/donnees/consentements", RS_CONSENTEMENT, methods=("POST",), again=mes_donnees)
async def consentir(ctx: Ctx) -> Response:
    await _consentements(ctx).recueillir(_demande(ctx, None, CanalConsentement.CONSOLE))
    return redirect("/moi/donnees?fait=consenti")


@page("/moi/donnees/consentements/{id}/retrait", RS_CONSENTEMENT, methods=("POST",), again=mes_donnees)
async def retirer(ctx: Ctx) -> Response:
    await _consentements(ctx).retirer(parse_id(ctx.request.path_params["id"]))
    return redirect("/moi/donnees?fait=retire")


@page("/moi/donnees/oppositions", RS_COMPTE_ADHERENT, methods=("POST",), again=mes_donnees)
async def opposer(ctx: Ctx) -> Response:
    """The member objects to a processing of the register (a four-eyes request: a second person decides)."""
    data = CreateOppositionRequest(traitement=ctx.field("traitement"), motif=ctx.field("motif"))
    await OppositionService(ctx.db, ctx.auth).demander(None, data.traitement, data.motif)
    return redirect("/moi/donnees?fait=opposition")


@page("/moi/donnees/oppositions/{id}/retrait", RS_COMPTE_ADHERENT, methods=("POST",), again=mes_donnees)
async def retirer_opposition(ctx: Ctx) -> Response:
    await OppositionService(ctx.db, ctx.auth).retirer(parse_id(ctx.request.path_params["id"]),
                                                      ctx.field("motif") or None)
    return redirect("/moi/donnees?fait=opposition-retiree")


@page("/membres/{id}/consentements", RS_CONSENTEMENT, methods=("POST",), again="/membres/{id}")
async def consentement_papier(ctx: Ctx) -> Response:
    """The secretariat records the consent the member signed on the paper form."""
    membre_id = parse_id(ctx.request.path_params["id"])
    await _consentements(ctx).recueillir(_demande(ctx, membre_id, CanalConsentement.PAPIER))
    return redirect(f"/membres/{membre_id}?fait=consentement")


@page("/membres/{id}/consentements/formulaire", RS_CONSENTEMENT)
async def formulaire_papier(ctx: Ctx) -> Response:
    """The form the member reads and signs (the notice, his identity, the boxes, the signatures), the API's."""
    membre_id = parse_id(ctx.request.path_params["id"])
    finalite, organisation_id = _choix(ctx, query=True)
    content = await formulaire(ctx.db, ctx.auth, settings_of(ctx.request), organisation_id, finalite, membre_id)
    return Response(content, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="consentement-{finalite.value.lower()}.pdf"',
        "Cache-Control": "no-store"})


@page("/acces-fiches", RS_ACCES_DOSSIER_ORGANISATION)
async def acces_fiches(ctx: Ctx) -> Response:
    texte = ctx.request.query_params.get("page", "0")
    acces = await AccesDossierService(ctx.db, ctx.auth).lister(None, PageParams(int(texte) if texte.isdigit()
                                                                                 and len(texte) < 6 else 0, 50))
    return ctx.render("acces_fiches.html", acces=acces)


@page("/registre-traitements", RS_REGISTRE_TRAITEMENTS)
async def registre_traitements(ctx: Ctx) -> Response:
    """The register, each processing with its CDP récépissé or « non déclaré », and the form to record one."""
    service = _registre(ctx)
    organisation_id = service.organisation_par_defaut()
    return ctx.render("registre_traitements.html", registre=await service.registre(organisation_id),
                      peut_enregistrer=organisation_id is not None
                      and ctx.can(Permission.DONNEES_RECEPISSE_ENREGISTRER, organisation_id),
                      fait=ctx.request.query_params.get("fait"))


@page("/registre-traitements/recepisse", RS_REGISTRE_TRAITEMENTS, methods=("POST",), again=registre_traitements)
async def enregistrer_recepisse(ctx: Ctx) -> Response:
    """The organisation's administrator or data-protection officer records the récépissé the CDP gave."""
    service = _registre(ctx)
    organisation_id = service.organisation_par_defaut() or ctx.organisation()
    data = CreateRecepisseTraitementRequest(
        organisation_id=organisation_id, numero_recepisse=ctx.field("numero_recepisse"),
        date_recepisse=parse_date(ctx.field("date_recepisse"), "date_recepisse", required=True),
        date_declaration=parse_date(ctx.field("date_declaration"), "date_declaration"))
    await service.enregistrer_recepisse(ctx.field("traitement"), data)
    return redirect("/registre-traitements?fait=recepisse")


@page("/registre-traitements/pdf", RS_REGISTRE_TRAITEMENTS)
async def registre_pdf(ctx: Ctx) -> Response:
    service = _registre(ctx)
    content = await service.pdf(service.organisation_par_defaut())
    return Response(content, media_type="application/pdf", headers={
        "Content-Disposition": 'attachment; filename="registre-traitements.pdf"', "Cache-Control": "no-store"})
