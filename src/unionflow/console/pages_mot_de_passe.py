"""Changing one's password in the console; the change an administrator imposed comes before any other page.

A person whose password was set by an administrator (the initial account, a reset by the administration) is sent
here from every page, as the API answers 403 `mot-de-passe-a-changer` everywhere but its password route: he sees
nobody's data until he has chosen his own. The change is the API's operation (identity/operations.py: the same
attempt limiter, provider and revocation of every session); the person then signs in again.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from unionflow.console import session as cookie
from unionflow.console.pages import PREFIX, Ctx, page
from unionflow.core.errors import InvalidInput
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.identity import operations
from unionflow.identity.schemas import PasswordChange


@page("/mot-de-passe", RS_ANY_AUTHENTICATED)
async def mot_de_passe(ctx: Ctx) -> Response:
    return ctx.render("mot_de_passe.html", impose=ctx.auth.password_change_required)


@page("/mot-de-passe", RS_ANY_AUTHENTICATED, methods=("POST",), again=mot_de_passe)
async def mot_de_passe_post(ctx: Ctx) -> Response:
    assert ctx.form is not None
    # Passwords are taken as typed: a space is a character of the password, never trimmed.
    actuel, nouveau, confirmation = (str(ctx.form.get(name) or "") for name in ("actuel", "nouveau", "confirmation"))
    if nouveau != confirmation:
        raise InvalidInput("Les deux saisies du nouveau mot de passe diffèrent")
    data = PasswordChange.model_validate({"motDePasseActuel": actuel, "nouveauMotDePasse": nouveau})
    await operations.changer_mot_de_passe(ctx.request, ctx.db, ctx.auth, data)
    # Every session was revoked with the change: signed out here too, to sign in with the new password.
    response = RedirectResponse(f"{PREFIX}/connexion?fait=mot-de-passe", status_code=303)
    cookie.clear(ctx.request, response)
    return response
