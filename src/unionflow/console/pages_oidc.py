"""Sign-in at the external OIDC provider: the redirect out (state, nonce, PKCE) and the return (code → session)."""

from __future__ import annotations

import secrets
import time

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from unionflow.console import oidc
from unionflow.console import session as cookie
from unionflow.console.pages import PREFIX, public
from unionflow.console.pages_session import _suite, login_again
from unionflow.console.session import ConsoleSession


def _refused(request: Request, suite: str, message: str, status: int = 400) -> Response:
    response = login_again(request, cookie.login_csrf(request), suite, "", message, status)
    oidc.clear_flow(request, response)
    return response


@public("/connexion/oidc")
async def connexion_oidc(request: Request) -> Response:
    """A plain link (GET): it starts a flow and changes nothing; the state it sets is checked on the return."""
    settings = request.app.state.settings
    suite = _suite(request.query_params.get("suite"))
    if not oidc.configured(settings):
        return _refused(request, suite, "Aucun fournisseur d'identité externe n'est configuré.", 404)
    flow = oidc.new_flow(suite)
    try:
        document = await oidc.discovery(settings)
        response = RedirectResponse(oidc.authorization_url(settings, document, flow), status_code=303)
        await oidc.write_flow(request, response, flow)
    except oidc.OidcError as error:
        return _refused(request, suite, str(error), 503)
    return response


@public(oidc.CALLBACK.removeprefix(PREFIX))
async def connexion_oidc_retour(request: Request) -> Response:
    settings = request.app.state.settings
    flow = await oidc.read_flow(request)
    if flow is None or not oidc.configured(settings):
        return _refused(request, PREFIX + "/", "Connexion expirée ou commencée ailleurs: veuillez recommencer.", 403)
    if not secrets.compare_digest(request.query_params.get("state", "").encode(), flow.state.encode()):
        return _refused(request, flow.suite, "Connexion refusée: réponse du fournisseur sans l'état attendu.", 403)
    if "error" in request.query_params or not request.query_params.get("code"):
        detail = request.query_params.get("error_description") or request.query_params.get("error") or "sans code"
        return _refused(request, flow.suite, f"{oidc.display_name(settings)} n'a pas accordé la connexion "
                                             f"({detail[:200]}).")
    try:
        tokens = await oidc.exchange(settings, request.app.state.token_verifier, await oidc.discovery(settings),
                                     flow, request.query_params["code"])
    except oidc.OidcError as error:
        return _refused(request, flow.suite, str(error))
    console = ConsoleSession(access_token=str(tokens["access_token"]), refresh_token=tokens.get("refresh_token"),
                             expires_at=time.time() + int(tokens.get("expires_in") or 300), externe=True)
    response = RedirectResponse(flow.suite, status_code=303)
    await cookie.write(request, response, console, settings.refresh_token_ttl_seconds)
    oidc.clear_flow(request, response)
    return response
