"""Treasurer: statements to download (PDF/XLSX as the API renders them), the accounting lock with its reopening
requests (asked by one person, decided by a second), and the monthly closing (checklist, close, closing pack PDF).

Role sets are the API's: ``RS_TRESORERIE_READ`` to read and download, ``RS_TRESORERIE`` to lock, ask a reopening
or close a month, ``RS_FINANCE_DECIDE`` to decide a reopening. The organisation is the active one; the services
answer 404 for books the caller does not see and 403 for an action his role does not grant."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from decimal import Decimal

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.clotures.mensuelle.schemas import CreateClotureMensuelleRequest
from unionflow.console import services_etats_annuels, services_finance
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, NotFound, RegleMetier, schema_error
from unionflow.core.montants import lire_montant
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_FINANCE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ

ETATS = (("balance", "Balance générale"), ("journal", "Journal des écritures"), ("grand-livre", "Grand livre"),
         ("bilan", "Bilan"), ("compte-resultat", "Compte de résultat"))
FORMATS = ("pdf", "xlsx")
DOCUMENTS_FIN_EXERCICE = {"inventaire": "Livre d'inventaire", "assemblee": "Dossier de l'assemblée générale"}
MOIS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
        "novembre", "décembre")



def parse_date(value: str, name: str, required: bool = False) -> date | None:
    if not value:
        if required:
            raise InvalidInput(f"{name}: date requise (AAAA-MM-JJ)")
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name}: date invalide, attendu AAAA-MM-JJ") from None


def parse_decimal(value: str, name: str) -> Decimal:
    """A balance counted at the closing: empty is zero, « 1 250 000 » as typed (core.montants)."""
    return lire_montant(value, name, positif=False) if value else Decimal(0)


@page("/comptabilite", RS_TRESORERIE_READ)
async def comptabilite(ctx: Ctx) -> Response:
    org = ctx.organisation()
    verrou = await services_finance.verrou(ctx.db, ctx.auth, org)
    demandes = await services_finance.deverrouillages(ctx.db, ctx.auth, org)
    today = date.today()
    return ctx.render("comptabilite.html", etats=ETATS, formats=FORMATS, verrou=verrou, demandes=demandes,
                      documents_fin=DOCUMENTS_FIN_EXERCICE, etats_annuels=services_etats_annuels.LIBELLES,
                      exercice=today.year - 1,
                      debut=date(today.year, 1, 1).isoformat(), fin=today.isoformat(),
                      peut_verrouiller=ctx.can(Permission.COMPTABILITE_CLOTURER),
                      peut_decider=RS_FINANCE_DECIDE.allows(ctx.auth.roles) and ctx.can(Permission.FINANCE_DECIDER),
                      moi=ctx.auth.actor_name)


@page("/comptabilite/etat", RS_TRESORERIE_READ)
async def etat(ctx: Ctx) -> Response:
    query = ctx.request.query_params
    nom, fmt = query.get("etat", "balance"), query.get("format", "pdf")
    if nom not in dict(ETATS) or fmt not in FORMATS:
        raise NotFound("État introuvable")
    content, media, filename = await services_finance.etat(
        ctx.db, ctx.auth, nom, ctx.organisation(), parse_date(query.get("debut", ""), "Du"),
        parse_date(query.get("fin", ""), "Au"), fmt)
    return _telecharger(content, media, filename)


@page("/comptabilite/fin-exercice", RS_TRESORERIE_READ)
async def fin_exercice(ctx: Ctx) -> Response:
    """The livre d'inventaire or the general-assembly pack of a year, as the API renders them (PDF)."""
    query = ctx.request.query_params
    document = query.get("document", "inventaire")
    if document not in DOCUMENTS_FIN_EXERCICE:
        raise NotFound("Document introuvable")
    content, filename = await services_finance.fin_exercice(
        ctx.db, ctx.auth, document, ctx.organisation(), _exercice(query.get("exercice", "")),
        parse_date(query.get("dateAssemblee", ""), "Date de l'assemblée"))
    return _telecharger(content, "application/pdf", filename)


@page("/comptabilite/etat-annuel", RS_TRESORERIE_READ)
async def etat_annuel(ctx: Ctx) -> Response:
    """A year's SYCEBNL or SMT statement, as the API renders it (PDF to sign or workbook)."""
    query = ctx.request.query_params
    fmt = query.get("format", "pdf")
    if fmt not in FORMATS:
        raise NotFound("Format introuvable")
    content, media, filename = await services_etats_annuels.etat_annuel(
        ctx.db, ctx.auth, query.get("etat", ""), ctx.organisation(), _exercice(query.get("exercice", "")), fmt)
    return _telecharger(content, media, filename)


def _telecharger(content: bytes, media: str, filename: str) -> Response:
    """A file to save, never kept by a shared PC's browser cache."""
    return Response(content, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"})


def _exercice(value: str) -> int:
    try:
        exercice = int(value)
    except ValueError:
        raise InvalidInput("Exercice: année requise (AAAA)") from None
    if not 1900 <= exercice <= 9999:
        raise InvalidInput("Exercice: année requise (AAAA)")
    return exercice


@page("/comptabilite/verrou", RS_TRESORERIE, methods=("POST",), again="/comptabilite")
async def verrouiller(ctx: Ctx) -> Response:
    jusqu_au = parse_date(ctx.field("date"), "Date de verrouillage", required=True)
    assert jusqu_au is not None
    await services_finance.verrouiller(ctx.db, ctx.auth, ctx.organisation(), jusqu_au)
    return redirect("/comptabilite?fait=verrou")


@page("/comptabilite/deverrouillages", RS_TRESORERIE, methods=("POST",), again="/comptabilite")
async def demander(ctx: Ctx) -> Response:
    jusqu_au = parse_date(ctx.field("date"), "Nouvelle date de verrouillage", required=True)
    assert jusqu_au is not None
    motif = ctx.field("motif")
    if len(motif) < 5:
        raise InvalidInput("Indiquez pourquoi la période doit être rouverte (5 caractères au moins)")
    await services_finance.demander_deverrouillage(ctx.db, ctx.auth, ctx.organisation(), jusqu_au, motif)
    return redirect("/comptabilite?fait=demande")


async def _decider(ctx: Ctx, decision: str) -> Response:
    commentaire = ctx.field("commentaire") or None
    if decision == "rejeter" and (commentaire is None or len(commentaire) < 3):
        raise InvalidInput("Indiquez le motif du rejet (3 caractères au moins)")
    await services_finance.decider_deverrouillage(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]),
                                                  decision, commentaire)
    return redirect(f"/comptabilite?fait={decision}")


@page("/comptabilite/deverrouillages/{id}/approuver", RS_FINANCE_DECIDE, methods=("POST",), again="/comptabilite")
async def approuver(ctx: Ctx) -> Response:
    return await _decider(ctx, "approuver")


@page("/comptabilite/deverrouillages/{id}/rejeter", RS_FINANCE_DECIDE, methods=("POST",), again="/comptabilite")
async def rejeter(ctx: Ctx) -> Response:
    return await _decider(ctx, "rejeter")


@page("/comptabilite/deverrouillages/{id}/annuler", RS_TRESORERIE, methods=("POST",), again="/comptabilite")
async def retirer(ctx: Ctx) -> Response:
    return await _decider(ctx, "annuler")


def _mois_precedent() -> tuple[int, int]:
    last = date.today().replace(day=1) - timedelta(days=1)
    return last.year, last.month


async def _page_clotures(ctx: Ctx, status: int = 200, controles: list[dict[str, object]] | None = None,
                         saisie: dict[str, str] | None = None) -> Response:
    org = ctx.organisation()
    faites = await services_finance.clotures(ctx.db, ctx.auth, org)
    annee, mois = _mois_precedent()
    fin = date(annee, mois, calendar.monthrange(annee, mois)[1])
    livres = await services_finance.soldes_livres(ctx.db, ctx.auth, org, fin)
    return ctx.render("clotures.html", status, clotures=faites, mois_noms=MOIS, annee=annee, mois=mois, fin=fin,
                      livres=livres, controles=controles, saisie=saisie or {},
                      peut_cloturer=ctx.can(Permission.COMPTABILITE_CLOTURER))


@page("/clotures", RS_TRESORERIE_READ)
async def clotures(ctx: Ctx) -> Response:
    return await _page_clotures(ctx)


@page("/clotures", RS_TRESORERIE, methods=("POST",))
async def cloturer(ctx: Ctx) -> Response:
    """The closing as POST /api/comptabilite/clotures-mensuelles: a failed check refuses it (400) and the page
    shows the service's checklist, each check with its detail; the treasurer corrects and posts again."""
    saisie = {k: ctx.field(k) for k in ("annee", "mois", "caisse", "banque", "wave", "compte_ecart", "motif_ecart")}
    try:
        data = CreateClotureMensuelleRequest(
            organisation_id=ctx.organisation(), annee=int(saisie["annee"] or 0), mois=int(saisie["mois"] or 0),
            caisse_comptee=parse_decimal(saisie["caisse"], "caisse"),
            solde_banque=parse_decimal(saisie["banque"], "banque"),
            solde_wave=parse_decimal(saisie["wave"], "wave"),
            compte_ecart=saisie["compte_ecart"] or None, motif_ecart=saisie["motif_ecart"] or None)
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:
        raise InvalidInput("Année et mois: des nombres sont attendus") from None
    try:
        await services_finance.cloturer_mois(ctx.db, ctx.auth, data)
    except RegleMetier as error:
        controles = error.extra.get("controles")
        if not controles:
            raise
        return await _page_clotures(ctx, 400, controles, saisie)
    return redirect("/clotures?fait=1")


@page("/clotures/{id}/dossier", RS_TRESORERIE_READ)
async def dossier(ctx: Ctx) -> Response:
    content, filename = await services_finance.dossier_cloture(ctx.db, ctx.auth,
                                                               parse_id(ctx.request.path_params["id"]))
    return _telecharger(content, "application/pdf", filename)
