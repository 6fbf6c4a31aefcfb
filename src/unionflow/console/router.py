"""The web console at /console: server-rendered French pages on the same app, port and services as the API.

Pages are plain routes added to the app (as the API documentation's pages are, core/docs.py), outside the
OpenAPI document (``include_in_schema=False``): they are not API operations and answer HTML, not problem+json.
Each page names its role set with ``@page(path, RS_X)`` (console/pages.py) and resolves the caller through
``core.auth.authenticate``; sign-in and sign-out are the only pages without one (``CONSOLE_PUBLIC``).
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from unionflow.console import (  # noqa: F401
    pages_accueil,
    pages_aide_membre,
    pages_annulations,
    pages_approbations,
    pages_audit,
    pages_avoirs,
    pages_benevolat,
    pages_comptabilite,
    pages_comptes_produits,
    pages_donnees,
    pages_dons,
    pages_effacements,
    pages_evenements,
    pages_federation,
    pages_fiche_membre,
    pages_fonds,
    pages_installation,
    pages_installation_edition,
    pages_lcbft,
    pages_membre,
    pages_mise_en_route,
    pages_mot_de_passe,
    pages_oidc,
    pages_oppositions,
    pages_organisations,
    pages_preferences,
    pages_referentiel,
    pages_releve,
    pages_saisies,
    pages_secretaire,
    pages_session,
    pages_taches,
    pages_travaux,
    pages_tresoreries,
    pages_tresorier,
    pages_ussd,
    pages_utilisateurs,
    pages_versements,
    pages_wave,
)
from unionflow.console.pages import HERE, PREFIX, ROUTES, error_page

CONSOLE_PUBLIC = frozenset({("GET", PREFIX + "/connexion"), ("POST", PREFIX + "/connexion"),
                            ("GET", PREFIX + "/connexion/oidc"), ("GET", PREFIX + "/connexion/oidc/retour"),
                            ("POST", PREFIX + "/deconnexion"), ("POST", PREFIX + "/deconnexion-partout"),
                            ("GET", PREFIX + "/static/{name}")})
STATIC = {p.name: p for p in (HERE / "static").iterdir() if p.is_file()}
MEDIA = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml",
         ".txt": "text/plain; charset=utf-8"}


async def static(request: Request) -> Response:
    found = STATIC.get(request.path_params["name"])
    if found is None:
        return error_page(request, 404, "Cette page n'existe pas.")
    # Names are fixed in the package: a week of browser cache, revalidated after an upgrade.
    return FileResponse(found, media_type=MEDIA.get(found.suffix, "application/octet-stream"),
                        headers={"Cache-Control": "public, max-age=604800"})


def install_console(app: FastAPI) -> None:
    app.add_route(PREFIX + "/static/{name}", static, methods=["GET"], include_in_schema=False)
    for route in ROUTES:
        app.add_route(route.path, route.endpoint, methods=sorted((route.methods or set()) - {"HEAD"}),
                      name=route.name, include_in_schema=False)
