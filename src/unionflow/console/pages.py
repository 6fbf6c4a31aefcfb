"""How a console page runs: the session cookie → the API's own ``AuthContext`` → the route's role set → the page.

``@page(path, RS_X)`` is the console's ``authorize(RS_X)``: the one visible place a page states who may open
it. The caller is resolved by ``core.auth.authenticate`` itself, with the access token of the session and the
chosen organisation/role as the ``X-Active-Organisation-Id`` / ``X-Active-Role`` headers the API reads, so a page
sees exactly what the same person sees through the API. Errors of the services become French pages with the
API's status (404 for a record out of sight, 403 for an action not permitted); a form the API route's schema
refuses is the API's own French 400 (``core.errors.schema_error``), never a 500, and a form page declared with
``again`` is shown again with the reason and what was typed.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi.security import HTTPAuthorizationCredentials
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from unionflow.console import cartes, navigation
from unionflow.console import session as cookie
from unionflow.console.raisons import field_reasons
from unionflow.console.session import ConsoleSession
from unionflow.core.auth import AuthContext, authenticate
from unionflow.core.db import get_session, read_only_session
from unionflow.core.errors import (
    Conflict,
    InvalidInput,
    InvalidState,
    RegleMetier,
    Unauthenticated,
    UnionFlowError,
    schema_error,
)
from unionflow.core.middleware import form_control_location
from unionflow.core.montants import NNBSP, format_montant, lire_montant, montant_a_saisir
from unionflow.core.permissions import Permission
from unionflow.core.roles import RoleSet

PREFIX = "/console"
HERE = Path(__file__).parent
templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                        trim_blocks=True, lstrip_blocks=True)
# Refresh the access token a little before it expires, so a page never fails half-way on an expired token.
REFRESH_MARGIN_SECONDS = 30


def montant(value: Any, devise: str = "XOF") -> str:
    """12 500 FCFA: French grouping with a narrow no-break space; XOF is written FCFA as on the receipts."""
    return format_montant(value or 0, devise, NNBSP)


def jour(value: Any) -> str:
    if value is None:
        return "—"
    return str(value.strftime("%d/%m/%Y %H:%M") if hasattr(value, "hour") else value.strftime("%d/%m/%Y"))


templates.filters["montant"] = montant
templates.filters["a_saisir"] = montant_a_saisir
templates.filters["jour"] = jour

STATUTS = {"EN_ATTENTE": "En attente", "VALIDE": "Validé", "ECHOUE": "Échoué", "EXPIRE": "Expiré",
           "ANNULE": "Annulé", "REMBOURSE": "Remboursé", "PAYEE": "Payée", "PARTIELLEMENT_PAYEE": "Partiellement payée",
           "EN_RETARD": "En retard", "ANNULEE": "Annulée", "ACTIF": "Actif", "INACTIF": "Inactif",
           "SUSPENDU": "Suspendu", "RADIE": "Radié", "APPROUVEE": "Approuvée", "REJETEE": "Rejetée",
           "CREER": "Créer", "METTRE_A_JOUR": "Mettre à jour", "INCHANGE": "Inchangé", "REFUSER": "Refuser",
           "SEUIL_OPERATION": "Seuil par opération", "CUMUL_PERIODE": "Cumul sur la période",
           "ESPECES_ELEVEES": "Espèces élevées", "EN_COURS": "En cours", "REUSSI": "Réussi", "MANUEL": "Manuel",
           "COTISATIONS": "Cotisations", "ADHESIONS": "Adhésions", "AIDE": "Aide",
           "ESPECES": "Espèces", "WAVE": "Wave", "VIREMENT": "Virement", "CHEQUE": "Chèque", "AUTRE": "Autre",
           "WAVE_TRANSFERT": "Transfert Wave", "ORANGE_MONEY": "Orange Money", "FREE_MONEY": "Free Money",
           "RETIREE": "Retirée", "SOUMISE": "Soumise", "FAIBLE": "Faible", "NORMALE": "Normale",
           "ELEVEE": "Élevée", "CRITIQUE": "Critique", "DECES": "Décès", "MALADIE": "Maladie", "MARIAGE": "Mariage",
           "NAISSANCE": "Naissance", "SCOLARITE": "Scolarité", "SINISTRE": "Sinistre", "TERMINE": "Terminée",
           # Consents (donnees_personnelles): purposes and channels.
           "ADHESION_SYNDICALE": "Appartenance syndicale", "SANTE_AIDE": "Données de santé (aide maladie)",
           "CONSOLE": "Console", "API": "Application", "PAPIER": "Formulaire papier", "USSD": "USSD"}
templates.filters["statut"] = lambda v: STATUTS.get(str(v), str(v))


# A page that needs an active organisation raises this; so do API services (« précisez … X-Active-Organisation-Id »):
# ``_page`` answers both with the chooser.
ORGANISATION_REQUISE = "Organisation active requise (X-Active-Organisation-Id)"


@dataclass
class Ctx:
    """What a page handler gets: the request, the caller as the API sees him, the request's transaction."""

    request: Request
    auth: AuthContext
    db: AsyncSession
    session: ConsoleSession
    form: FormData | None = None
    changed: bool = field(default=False)
    # A form page shown again after its post was refused: the reason, above the values the person typed.
    erreur: str | None = None
    # …and each field's own reason, by the form's field name, shown next to it (``raison``).
    erreurs: dict[str, str] = field(default_factory=dict)
    # …and, for a form repeated on each row of a list, the refused row: the path segments of the refused post
    # (``/annulations/{id}/rejeter``: that request's id, « rejeter »), so that only its row is marked (``ligne=``).
    lignes: frozenset[str] = frozenset()

    def organisation(self) -> uuid.UUID:
        """The active organisation of a page that works on one; without it, the chooser: ``_page`` sends the person
        to /console/contexte and back to this page (never a bare error page, the screenshots showed five)."""
        if self.auth.active_organisation_id is None:
            raise RegleMetier(ORGANISATION_REQUISE)
        return self.auth.active_organisation_id

    def can(self, permission: Permission, organisation_id: uuid.UUID | None = None) -> bool:
        return self.auth.can(permission, organisation_id or self.auth.active_organisation_id)

    def render(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        response = render(self.request, template, status, ctx=self, auth=self.auth, csrf=self.session.csrf,
                          menu=menu(self.auth), erreur=self.erreur, **values)
        if values.get("form_action"):  # a form whose post is redirected to a named outside origin (Wave)
            response.headers["Content-Security-Policy"] = CSP.replace(
                "form-action 'self'", f"form-action 'self' {values['form_action']}")
        return response

    def typed(self, name: str, default: Any = "") -> Any:
        """What the person typed in ``name`` when the form is shown again after a refusal, else ``default``."""
        return self.field(name) if self.erreur is not None and self.form is not None else default

    def typed_list(self, name: str) -> list[str] | None:
        """The values checked in ``name`` when the form is shown again after a refusal, else None."""
        return [str(v) for v in self.form.getlist(name)] if self.erreur is not None and self.form else None

    def field(self, name: str) -> str:
        value = self.form.get(name) if self.form is not None else None
        return value.strip() if isinstance(value, str) else ""

    def montant(self, name: str = "montant") -> Decimal:
        """The amount typed in ``name`` (« 2 500 », « 2500 »), refused next to that field when it is not one."""
        return lire_montant(self.field(name), name)

    def saisi(self, *names: str) -> dict[str, str]:
        """The values a refused form had (empty on a first display): the person corrects, he does not retype."""
        return {name: self.typed(name) for name in names}

    def refusee(self, ligne: Any) -> bool:
        """The row ``ligne`` (its id; a tuple: id and action, for a row with several forms) is the refused one."""
        parts = ligne if isinstance(ligne, tuple) else (ligne,)
        return self.erreur is not None and all(str(p) in self.lignes for p in parts)

    def _raison_de(self, name: str, ligne: Any, general: bool) -> tuple[str | None, str]:
        """The reason for ``name`` and the id of its text. On a row's form (``ligne``): only on the refused row,
        where a refusal naming no field (a balance, a state) stands beside the row's main field (``general``)."""
        if ligne is None:
            return self.erreurs.get(name), f"raison-{name}"
        if not self.refusee(ligne):
            return None, ""
        parts = ligne if isinstance(ligne, tuple) else (ligne,)
        found = self.erreurs.get(name) or (self.erreur if general and not self.erreurs else None)
        return found, "-".join(["raison", name, *map(str, parts)])

    def raison(self, name: str, ligne: Any = None, general: bool = False) -> Markup:
        """The reason the refused form gives for field ``name``, next to it (the input names it in
        ``aria-describedby`` through ``invalide``); nothing on a first display nor on another row."""
        found, ident = self._raison_de(name, ligne, general)
        if found is None:
            return Markup("")
        return Markup('<span class="raison" id="{0}">{1}</span>').format(ident, found)

    def invalide(self, name: str, ligne: Any = None, general: bool = False) -> Markup:
        """The attributes of a refused field: read as invalid, described by its reason."""
        found, ident = self._raison_de(name, ligne, general)
        if found is None:
            return Markup("")
        return Markup(' aria-invalid="true" aria-describedby="{0}"').format(escape(ident))

    def typed_row(self, ligne: Any, name: str, default: Any = "") -> Any:
        """What was typed in ``name`` of the refused row's form; other rows show ``default``."""
        return self.field(name) if self.refusee(ligne) else default


def render(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    html = cartes.etiqueter(templates.get_template(template).render(request=request, prefix=PREFIX, **values))
    response = HTMLResponse(html, status_code=status)
    # Pages hold personal data: never stored by a shared PC's browser cache or a proxy.
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = CSP
    return response


# No script runs on a page, no style comes from elsewhere, forms post only to the console.
CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'")

# A reason written for API clients names the API operation to use instead; a console user is told the screen.
ECRANS = {
    "POST /api/comptabilite/verrouillage/deverrouillages": "« Demander la réouverture » sur la page Comptabilité "
                                                           f"({PREFIX}/comptabilite)",
    "PUT /api/comptabilite/verrouillage": f"« Verrouiller » sur la page Comptabilité ({PREFIX}/comptabilite)",
}


def pour_console(detail: str) -> str:
    for api, ecran in ECRANS.items():
        detail = detail.replace(api, ecran)
    return detail


TITLES = {400: "Demande invalide", 403: "Accès refusé", 404: "Page introuvable", 409: "Conflit"}


def error_page(request: Request, status: int, detail: str, ctx: Ctx | None = None) -> HTMLResponse:
    values: dict[str, Any] = {"code": status, "title": TITLES.get(status, "Erreur"), "detail": pour_console(detail)}
    if ctx is not None:
        return ctx.render("erreur.html", status, **values)
    return render(request, "erreur.html", status, auth=None, **values)


def menu(auth: AuthContext) -> list[tuple[str, list[tuple[str, str]]]]:
    """The menu grouped by task (console/navigation.py), each screen offered to whom its page's role set admits."""
    return navigation.menu(auth, ROLE_SETS, PREFIX)


ROUTES: list[Route] = []
# Role set of each page, by path and method (tests/console check that every page but sign-in names one).
ROLE_SETS: dict[tuple[str, str], RoleSet] = {}
Handler = Callable[[Ctx], Awaitable[Response]]


# The GET handler of each path: a POST to the same path that is refused shows that page again (``again``).
GET_HANDLERS: dict[str, Handler] = {}
# Each POST's declared form page (None: the GET of the same path); tests/console check every form has one.
FORM_PAGES: dict[str, Handler | str | None] = {}


def page(path: str, role_set: RoleSet, methods: tuple[str, ...] = ("GET",),
         again: Handler | str | None = None) -> Callable[[Handler], Handler]:
    """``again``: the GET handler (or the path of the GET page) of the form this POST comes from, when it is not
    the GET of the same path (which is the default). A refused post (400, 409) shows that form again with the
    reason next to each field and what was typed, instead of the error page."""
    def register(handler: Handler) -> Handler:
        if "GET" in methods:
            GET_HANDLERS[PREFIX + path] = handler
        if "POST" in methods:
            FORM_PAGES[PREFIX + path] = again
        async def endpoint(request: Request) -> Response:
            form_page = (GET_HANDLERS.get(PREFIX + again) if isinstance(again, str) else again
                         or GET_HANDLERS.get(PREFIX + path)) if request.method == "POST" else None
            return await run(request, role_set, handler, form_page)

        ROUTES.append(Route(PREFIX + path, endpoint, methods=list(methods), name="console-" + handler.__name__))
        for method in methods:
            ROLE_SETS[(method, PREFIX + path)] = role_set
        return handler

    return register


def public(path: str, methods: tuple[str, ...] = ("GET",)) -> Callable[[Callable[[Request], Awaitable[Response]]],
                                                                       Callable[[Request], Awaitable[Response]]]:
    def register(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        ROUTES.append(Route(PREFIX + path, handler, methods=list(methods), name="console-" + handler.__name__))
        return handler

    return register


def to_login(request: Request, expiree: bool = False) -> RedirectResponse:
    """``expiree``: a session existed and ended (expired, signed out elsewhere): the sign-in page says so."""
    suite = request.url.path if request.method == "GET" else PREFIX + "/"
    fin = "&expiree=1" if expiree else ""
    response = RedirectResponse(f"{PREFIX}/connexion?suite={quote(suite)}{fin}", status_code=303)
    cookie.clear(request, response)
    return response


def _as_api_request(request: Request, console: ConsoleSession) -> Request:
    """The request as the API would receive it: the session's choices as the two headers ``resolve_context``
    reads (and nothing the browser sent under those names)."""
    headers = [(k, v) for k, v in request.scope["headers"]
               if k not in (b"x-active-organisation-id", b"x-active-role", b"authorization")]
    if console.organisation_id:
        headers.append((b"x-active-organisation-id", console.organisation_id.encode()))
    if console.role:
        headers.append((b"x-active-role", console.role.encode()))
    return Request({**request.scope, "headers": headers, "state": {}})


async def _fresh(request: Request, console: ConsoleSession) -> bool:
    """Refresh the access token through the token service when it is about to expire. False: signed out."""
    from unionflow.console import services

    if console.expires_at - REFRESH_MARGIN_SECONDS > time.time():
        if console.externe or not console.refresh_token:
            return True
        # Signed out everywhere (or the password changed) since: the session ends now, not when the access
        # token expires. One indexed read per page.
        async with read_only_session(request.app.state.sessionmaker) as db:
            return await services.session_ouverte(db, console.refresh_token)
    if not console.refresh_token:
        return False
    if console.externe:
        return await _fresh_externe(request, console)
    async with contextlib.asynccontextmanager(get_session)(request) as db:
        tokens = await services.refresh_grant(db, request, console.refresh_token)
    if tokens is None:
        return False
    console.access_token, console.refresh_token = tokens.access_token, tokens.refresh_token
    console.expires_at = time.time() + tokens.expires_in
    return True


async def _fresh_externe(request: Request, console: ConsoleSession) -> bool:
    """At the external provider's token endpoint; the new access token is verified on use like any other."""
    from unionflow.console import oidc

    tokens = await oidc.refresh(request.app.state.settings, str(console.refresh_token))
    if tokens is None:
        return False
    console.access_token = str(tokens["access_token"])
    console.refresh_token = str(tokens.get("refresh_token") or console.refresh_token)
    console.expires_at = time.time() + int(tokens.get("expires_in") or 300)
    return True


async def context_of(request: Request, console: ConsoleSession) -> AuthContext:
    credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=console.access_token)
    return await authenticate(_as_api_request(request, console), credentials)


async def run(request: Request, role_set: RoleSet, handler: Handler, again: Handler | None = None) -> Response:
    console = await cookie.read(request)
    if console is None:
        return to_login(request)
    refreshed = console.expires_at - REFRESH_MARGIN_SECONDS <= time.time()
    if not await _fresh(request, console):
        return to_login(request, expiree=True)
    try:
        auth = await context_of(request, console)
    except Unauthenticated:
        return to_login(request, expiree=True)
    except UnionFlowError as error:
        # The chosen organisation or role is no longer held (membership ended): back to the default context.
        console.organisation_id = console.role = None
        refused = error_page(request, error.status, error.detail)
        await cookie.write(request, refused, console, request.app.state.settings.refresh_token_ttl_seconds)
        return refused
    response = await _page(request, console, auth, role_set, handler, again)
    if refreshed or getattr(request.state, "console_changed", False):
        await cookie.write(request, response, console, request.app.state.settings.refresh_token_ttl_seconds)
    return response


async def _page(request: Request, console: ConsoleSession, auth: AuthContext, role_set: RoleSet,
                handler: Handler, again: Handler | None = None) -> Response:
    form = await request.form() if request.method == "POST" else None
    if form is not None and not cookie.same(str(form.get("csrf") or ""), console.csrf):
        return error_page(request, 403, "Formulaire expiré ou falsifié (jeton CSRF invalide): rechargez la page "
                                        "et recommencez.")
    if form is not None and (found := form_control_location(form)) is not None:
        # As the API's bodies (core/routing.py): PostgreSQL cannot store NUL, SQLite would; no one types them.
        return error_page(request, 400, f"Caractère de contrôle interdit ({found[1]}) dans le champ "
                                        f"« {found[0][-1]} »: retapez le texte sans le coller depuis un autre outil.")
    if auth.password_change_required and request.url.path != PREFIX + "/mot-de-passe":
        # As the API (403 `mot-de-passe-a-changer`): no page, no data, until the person chose his own password.
        return RedirectResponse(f"{PREFIX}/mot-de-passe", status_code=303)
    if not role_set.allows(auth.roles):
        held = frozenset().union(*auth.memberships.values()) if auth.memberships else frozenset()
        if any(auth.needs_active_organisation(held, role) for role in role_set.roles):
            return RedirectResponse(f"{PREFIX}/contexte?suite={quote(request.url.path)}", status_code=303)
        return error_page(request, 403, "Votre rôle ne donne pas accès à cette page.")
    try:
        async with contextlib.asynccontextmanager(get_session)(request) as db:
            ctx = Ctx(request, auth, db, console, form)
            response = await handler(ctx)
            if ctx.changed:
                request.state.console_changed = True
            return response
    except ValidationError as invalid:
        # A body the form built and the API route's schema refuses: the API's own French 400 (core.errors).
        error: UnionFlowError = schema_error(invalid)
    except UnionFlowError as refused:
        error = refused
    # The request's transaction is rolled back: nothing of the refused action (nor its idempotency key) remains.
    if isinstance(error, RegleMetier) and "X-Active-Organisation-Id" in error.detail:
        return RedirectResponse(f"{PREFIX}/contexte?suite={quote(request.url.path)}", status_code=303)
    if again is not None and isinstance(error, FORGIVEN):
        with contextlib.suppress(UnionFlowError):  # the form itself out of reach now: the error page
            return await _again(request, console, auth, form, again, error)
    return error_page(request, error.status, error.detail, Ctx(request, auth, None, console))  # type: ignore[arg-type]


# Refusals a person corrects in the same form: invalid input (400), an action the state does not allow (400), a
# conflict (409, an e-mail already used, a file already imported). 403 and 404 stay error pages.
FORGIVEN = (InvalidInput, InvalidState, Conflict)


async def _again(request: Request, console: ConsoleSession, auth: AuthContext, form: FormData | None,
                 again: Handler, error: UnionFlowError) -> Response:
    """The form shown again, in a fresh read of the data, with the reason (above the form and next to each field
    it concerns) and the typed values, with the refusal's status."""
    async with contextlib.asynccontextmanager(get_session)(request) as db:
        response = await again(Ctx(request, auth, db, console, form, erreur=pour_console(error.detail),
                                   erreurs=field_reasons(error),
                                   lignes=frozenset(request.url.path.split("/"))))
    response.status_code = error.status
    return response


def redirect(path: str) -> RedirectResponse:
    return RedirectResponse(PREFIX + path, status_code=303)
