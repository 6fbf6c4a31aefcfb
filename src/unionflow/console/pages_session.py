"""Sign-in, sign-out (here or everywhere), session expiry and the chooser of the active organisation and role."""

from __future__ import annotations

import contextlib
import time
import uuid

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from unionflow.auth.throttle import IP_LIMIT_FACTOR, AttemptLimiter, client_ip
from unionflow.console import services
from unionflow.console import session as cookie
from unionflow.console.pages import PREFIX, Ctx, page, public, render, to_login
from unionflow.console.session import ConsoleSession
from unionflow.core.db import get_session
from unionflow.core.errors import TooManyRequests, UnionFlowError
from unionflow.core.middleware import form_control_location
from unionflow.core.roles import RS_NOTIFICATION_MES


def external_provider(request: Request) -> str | None:
    """The name on the « Se connecter avec … » button, when an external provider and our client are set."""
    from unionflow.console import oidc

    settings = request.app.state.settings
    return oidc.display_name(settings) if oidc.configured(settings) else None


def _suite(value: str | None) -> str:
    # Only a console path: never an open redirect to another site.
    return value if value and value.startswith(PREFIX + "/") and not value.startswith("//") else PREFIX + "/"


SESSION_EXPIREE = "Votre session a expiré ou a été fermée: reconnectez-vous pour continuer."
INFOS = {"mot-de-passe": "Mot de passe changé: reconnectez-vous avec le nouveau.",
         "partout": "Vous êtes déconnecté de tous vos appareils et navigateurs."}


@public("/connexion")
async def connexion(request: Request) -> Response:
    token = cookie.login_csrf(request)
    response = render(request, "connexion.html", auth=None, csrf=token,
                      suite=_suite(request.query_params.get("suite")), erreur=None, email="",
                      externe=external_provider(request),
                      info=INFOS.get(request.query_params.get("fait") or "")
                      or (SESSION_EXPIREE if request.query_params.get("expiree") else None))
    cookie.set_login_csrf(request, response, token)
    return response


@public("/connexion", methods=("POST",))
async def connexion_post(request: Request) -> Response:
    form = await request.form()
    email, password = str(form.get("email") or "").strip(), str(form.get("password") or "")
    suite = _suite(str(form.get("suite") or ""))
    token = cookie.login_csrf(request)
    if not cookie.same(str(form.get("csrf") or ""), request.cookies.get(cookie.LOGIN_CSRF_COOKIE)):
        return login_again(request, token, suite, email, "Formulaire expiré: veuillez recommencer.", 403)
    if not email or not password:
        return login_again(request, token, suite, email, "Saisissez votre e-mail et votre mot de passe.", 400)
    if form_control_location(form) is not None:  # as the API's token endpoint (PostgreSQL cannot store NUL)
        return login_again(request, token, suite, "", "Caractère de contrôle interdit dans le formulaire.", 400)
    # The same attempt limits as POST /api/auth/token (per e-mail and per address).
    limiter = AttemptLimiter(request, "login")
    by_email, by_ip = limiter.key("email", email), limiter.key("ip", client_ip(request))
    try:
        async with contextlib.asynccontextmanager(get_session)(request) as db:
            tokens = await limiter.attempt(
                db, [(by_email, limiter.limit), (by_ip, limiter.limit * IP_LIMIT_FACTOR)], [by_email],
                lambda: services.password_grant(db, request, email, password), services.InvalidGrant)
    except TooManyRequests:
        return login_again(request, token, suite, email, "Trop de tentatives: réessayez dans quelques minutes.",
                            429)
    except UnionFlowError:
        return login_again(request, token, suite, email, "E-mail ou mot de passe incorrect.", 400)
    console = ConsoleSession(access_token=tokens.access_token, refresh_token=tokens.refresh_token,
                             expires_at=time.time() + tokens.expires_in)
    response = RedirectResponse(suite, status_code=303)
    await cookie.write(request, response, console, request.app.state.settings.refresh_token_ttl_seconds)
    response.delete_cookie(cookie.LOGIN_CSRF_COOKIE, path=cookie.PATH)
    return response


def login_again(request: Request, token: str, suite: str, email: str, erreur: str, status: int) -> Response:
    response = render(request, "connexion.html", status, auth=None, csrf=token, suite=suite, erreur=erreur,
                      email=email, externe=external_provider(request))
    cookie.set_login_csrf(request, response, token)
    return response


async def _sortir(request: Request, partout: bool) -> Response:
    """Both sign-outs: the CSRF check, then the refresh token revoked (its family, or every family of the person),
    at the external provider for its sessions; the cookie cleared."""
    console = await cookie.read(request)
    if console is None:
        return to_login(request)
    form = await request.form()
    if not cookie.same(str(form.get("csrf") or ""), console.csrf):
        return render(request, "erreur.html", 403, auth=None, code=403, title="Accès refusé",
                      detail="Formulaire expiré ou falsifié (jeton CSRF invalide).")
    if console.refresh_token and console.externe:
        from unionflow.console import oidc

        await oidc.revoke(request.app.state.settings, console.refresh_token)
    elif console.refresh_token:
        async with contextlib.asynccontextmanager(get_session)(request) as db:
            revoquer = services.revoke_everywhere if partout else services.revoke
            await revoquer(db, console.refresh_token)
    response = RedirectResponse(PREFIX + ("/connexion?fait=partout" if partout else "/connexion"), status_code=303)
    cookie.clear(request, response)
    return response


@public("/deconnexion", methods=("POST",))
async def deconnexion(request: Request) -> Response:
    """Revokes the refresh token (its family) and clears the cookie. CSRF-checked like every form."""
    return await _sortir(request, partout=False)


@public("/deconnexion-partout", methods=("POST",))
async def deconnexion_partout(request: Request) -> Response:
    """Revokes every refresh token of the person (every browser and app of hers); her other console sessions end
    at their next page (``pages._fresh`` checks the token), her API clients at their next refresh. A session
    of an external provider is ended here only: the provider holds the others."""
    return await _sortir(request, partout=True)


@page("/contexte", RS_NOTIFICATION_MES)
async def contexte(ctx: Ctx) -> Response:
    organisations = await services.mes_organisations(ctx.db, ctx.auth)
    held = set(ctx.auth.realm_roles).union(*ctx.auth.memberships.values())
    return ctx.render("contexte.html", organisations=organisations, roles=sorted(held),
                      suite=_suite(ctx.request.query_params.get("suite")))


@page("/contexte", RS_NOTIFICATION_MES, methods=("POST",))
async def contexte_post(ctx: Ctx) -> Response:
    """Kept in the session; checked at once by resolving the caller with it (403 page if not held)."""
    organisation, role = ctx.field("organisation") or None, ctx.field("role") or None
    if organisation is not None:
        try:
            uuid.UUID(organisation)
        except ValueError:
            organisation = None
    ctx.session.organisation_id, ctx.session.role = organisation, role
    ctx.changed = True
    return RedirectResponse(_suite(ctx.field("suite")) if ctx.field("suite") else PREFIX + "/", status_code=303)
