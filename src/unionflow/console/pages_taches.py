"""Long work run as a background task (imports, dues generation, exports, backups): its progress and its result.

The page is GET /api/jobs/{id} through the same service (creator and SUPER_ADMIN/ADMIN see it, anyone else gets
the 404 page). While the task runs, the page reloads itself every few seconds with a ``<meta http-equiv="refresh">``
(no script: the pages' CSP allows none)."""

from __future__ import annotations

from starlette.responses import FileResponse, Response

from unionflow.console import services
from unionflow.console.pages import PREFIX, Ctx, page
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.imports.schemas import ImportMembresResponse
from unionflow.models.planificateur import StatutTache, TypeTache

TYPES = {TypeTache.GENERATION_COTISATIONS: "Génération des cotisations", TypeTache.SAUVEGARDE: "Sauvegarde",
         TypeTache.EXPORT: "Export", TypeTache.IMPORT_MEMBRES: "Import de membres"}
STATUTS = {StatutTache.EN_ATTENTE: "En attente", StatutTache.EN_COURS: "En cours", StatutTache.TERMINEE: "Terminée",
           StatutTache.ECHOUEE: "Échouée"}
RELOAD_SECONDS = 3
# The result's counts in French (import report, dues generation, export, backup); other keys shown as named.
LIBELLES = {"total": "Lignes", "crees": "Créé(e)s", "creees": "Créées", "misAJour": "Mis à jour",
            "mis_a_jour": "Mis à jour", "inchanges": "Inchangés", "refuses": "Refusées", "ignorees": "Ignorées",
            "membresActifs": "Membres actifs", "lignes": "Lignes", "taille": "Taille (octets)"}


def bilan(resultat: dict[str, object] | None) -> list[tuple[str, object]]:
    """The result's plain counts and texts (not the booleans nor the lists, such as the refused lines)."""
    return [(LIBELLES.get(k, k), v) for k, v in (resultat or {}).items()
            if isinstance(v, int | str) and not isinstance(v, bool)]


@page("/taches/{id}", RS_ANY_AUTHENTICATED)
async def tache(ctx: Ctx) -> Response:
    found = await services.tache(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]))
    en_cours = found.statut in (StatutTache.EN_ATTENTE, StatutTache.EN_COURS)
    fichier = (f"{PREFIX}/taches/{found.id}/fichier"
               if found.statut == StatutTache.TERMINEE and found.type == TypeTache.EXPORT else None)
    # A finished import lists its refused and flagged lines as the dry run does (_lignes_import.html).
    rapport = (ImportMembresResponse.model_validate(found.resultat)
               if found.type == TypeTache.IMPORT_MEMBRES and found.resultat else None)
    return ctx.render("tache.html", tache=found, type_=TYPES.get(found.type, found.type),
                      statut_=STATUTS.get(found.statut, found.statut), recharger=RELOAD_SECONDS if en_cours else None,
                      fichier=fichier, bilan=bilan(found.resultat), rapport=rapport)


@page("/taches/{id}/fichier", RS_ANY_AUTHENTICATED)
async def fichier(ctx: Ctx) -> Response:
    path, filename, media_type = await services.fichier_tache(ctx.db, ctx.auth, ctx.request,
                                                              parse_id(ctx.request.path_params["id"]))
    return FileResponse(path, media_type=media_type, filename=filename, content_disposition_type="attachment",
                        headers={"Cache-Control": "no-store"})
