"""The home page: what needs doing now, for each of the person's roles (the union of their sections).

Each line is a count and the screen where it is done. A line appears only when its screen is in the person's menu
(the page's own role set, console/navigation.py) and he holds the permission of the work it counts (a president
reads the declarations but confirms none: no « Déclarations à confirmer » for him). Counts come from the API's
services (console/services_accueil.py). A person of several organisations who has not said for which one she works
is asked first, on this page: her staff roles apply only in the organisation she chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from starlette.responses import Response

from unionflow.console import mise_en_route, navigation, services
from unionflow.console import services_accueil as compter
from unionflow.console.pages import PREFIX, ROLE_SETS, Ctx, montant, page
from unionflow.console.pages_comptabilite import MOIS
from unionflow.core.permissions import Permission
from unionflow.core.roles import ORGANISATION_STAFF_ROLES, RS_NOTIFICATION_MES, Role

ADMINISTRATEURS = frozenset({Role.SUPER_ADMIN, Role.ADMIN, Role.ADMIN_ORGANISATION})


@dataclass(frozen=True)
class Chose:
    """One thing to do: how many, where. ``nombre`` None: a screen to visit, nothing counted."""

    cle: str  # names the line for whoever reads the page by machine (its tests)
    libelle: str
    lien: str
    nombre: int | None = None
    detail: str | None = None


def _offert(ctx: Ctx, path: str) -> bool:
    return navigation.offert(ctx.auth, path, ROLE_SETS, PREFIX)


def _peut(ctx: Ctx, path: str, permission: Permission) -> bool:
    return _offert(ctx, path) and ctx.can(permission)


async def _approuver(ctx: Ctx) -> list[Chose]:
    choses = []
    if _offert(ctx, "/a-approuver"):
        choses.append(Chose("a-approuver", "Demandes à approuver", "/a-approuver",
                            await compter.a_approuver(ctx.db, ctx.auth)))
    if _peut(ctx, "/aides", Permission.AIDE_DECIDER):
        choses.append(Chose("aides", "Demandes d'aide à décider", "/aides",
                            await compter.aides_a_decider(ctx.db, ctx.auth)))
    return choses


async def _encaisser(ctx: Ctx) -> list[Chose]:
    choses = []
    if _peut(ctx, "/declarations", Permission.PAIEMENT_ENREGISTRER):
        choses.append(Chose("declarations", "Déclarations à confirmer", "/declarations",
                            await compter.declarations(ctx.db, ctx.auth)))
    if _peut(ctx, "/versements", Permission.VERSEMENT_CONFIRMER):
        choses.append(Chose("versements", "Versements à confirmer", "/versements",
                            await compter.versements_a_confirmer(ctx.db, ctx.auth, ctx.request)))
    if _peut(ctx, "/wave/releves", Permission.WAVE_RAPPROCHER):
        choses.append(Chose("wave", "Lignes inconnues des relevés Wave", "/wave/releves",
                            await compter.lignes_wave_inconnues(ctx.db, ctx.auth)))
    if _peut(ctx, "/clotures", Permission.COMPTABILITE_CLOTURER) and ctx.auth.active_organisation_id:
        annee, mois = compter.mois_a_cloturer(date.today())
        clos = await compter.mois_clos(ctx.db, ctx.auth, annee, mois)
        choses.append(Chose("cloture", f"Clôture de {MOIS[mois - 1]} {annee}", "/clotures", 0 if clos else 1,
                            "faite" if clos else "à faire"))
    return choses


async def _membres(ctx: Ctx) -> list[Chose]:
    choses = []
    if _offert(ctx, "/membres"):
        choses.append(Chose("membres", "Membres", "/membres", await compter.membres(ctx.db, ctx.auth)))
    if _peut(ctx, "/adhesions", Permission.ADHESION_DECIDER):
        choses.append(Chose("adhesions", "Adhésions en attente", "/adhesions",
                            await compter.adhesions_en_attente(ctx.db, ctx.auth)))
    return choses


async def _parametres(ctx: Ctx) -> list[Chose]:
    # The guided set-up counts its remaining steps (console/mise_en_route.py); the home shows how many and the
    # next one, and says nothing once the union is set up.
    if not (ctx.auth.roles & ADMINISTRATEURS and _offert(ctx, "/mise-en-route")):
        return []
    restantes = await mise_en_route.restantes(ctx.db, ctx.auth)
    if not restantes:
        return []
    return [Chose("mise-en-route", "Étapes de mise en route restantes", "/mise-en-route", len(restantes),
                  f"Prochaine: {restantes[0].titre}")]


async def _mon_compte(ctx: Ctx) -> list[Chose]:
    if not _offert(ctx, "/moi"):
        return []
    nombre, du, devise, attente = await compter.mes_cotisations(ctx.db, ctx.auth)
    detail = f"{montant(du, devise)} à payer" if nombre else None
    choses = [Chose("mes-cotisations", "Mes cotisations à payer", "/moi", nombre, detail)]
    if attente:
        choses.append(Chose("mes-declarations", "Mes déclarations en attente de la trésorerie", "/moi", attente))
    return choses


SECTIONS = (("À approuver", _approuver), ("Encaisser", _encaisser), ("Membres", _membres),
            ("Paramètres", _parametres), ("Mon compte", _mon_compte))


def _choix_a_faire(ctx: Ctx) -> bool:
    """Several organisations, none chosen, and a staff role in one of them: her work waits for the choice."""
    auth = ctx.auth
    return (auth.active_organisation_id is None and auth.active_role is None and len(auth.memberships) > 1
            and any(roles & ORGANISATION_STAFF_ROLES for roles in auth.memberships.values()))


@page("/", RS_NOTIFICATION_MES)
async def accueil(ctx: Ctx) -> Response:
    organisations = await services.mes_organisations(ctx.db, ctx.auth) if _choix_a_faire(ctx) else []
    sections = []
    for titre, construire in SECTIONS:
        choses = await construire(ctx)
        if choses:
            sections.append((titre, choses))
    return ctx.render("accueil.html", sections=sections, organisations=organisations,
                      partout=not ctx.session.externe)
