"""Events: the secretary lists and creates them and sees each one's registrations and waiting list; a member sees
the events open to him, registers and cancels (a full event with a waiting list puts him in the queue; a freed
place promotes the first in line: the events area's rules). Role sets: the API's (``RS_EVT_READ`` to list,
``RS_EVT_READ2`` for an event, ``RS_EVT_WRITE`` to create, ``RS_EVT_INSCRIPTION`` to register)."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console import services_evenements as evenements
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, schema_error
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_EVT_INSCRIPTION, RS_EVT_READ, RS_EVT_READ2, RS_EVT_WRITE
from unionflow.evenements.schemas import Evenement
from unionflow.models.evenement import StatutInscription, Visibilite

MESSAGES = {"cree": "Événement créé.", "inscrit": "Vous êtes inscrit.",
            "attente": "L'événement est complet: vous êtes sur la liste d'attente; une place libérée vous sera "
                       "attribuée dans l'ordre d'arrivée.", "desinscrit": "Inscription annulée."}


def parse_moment(value: str, name: str, required: bool = True) -> datetime | None:
    """A ``datetime-local`` field, read in UTC (Dakar's time; the API's dates carry their offset)."""
    if not value:
        if required:
            raise InvalidInput(f"{name}: date et heure requises")
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name}: date et heure invalides") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _gere(ctx: Ctx) -> bool:
    return RS_EVT_WRITE.allows(ctx.auth.roles) and ctx.can(Permission.EVENEMENT_GERER)


@page("/evenements", RS_EVT_READ)
async def liste(ctx: Ctx) -> Response:
    actifs = await evenements.actifs(ctx.db, ctx.auth)
    mes = await evenements.mes_inscriptions(ctx.db, ctx.auth)
    actives = {i.evenement_id: i for i in mes if i.statut != StatutInscription.ANNULEE}
    gere = _gere(ctx) and ctx.auth.active_organisation_id is not None
    return ctx.render("evenements.html", evenements=actifs, actives=actives, mes=mes, gere=gere,
                      types=await evenements.types(ctx.db, ctx.auth) if gere else [],
                      peut_inscrire=ctx.auth.membre_id is not None and RS_EVT_INSCRIPTION.allows(ctx.auth.roles),
                      message=MESSAGES.get(ctx.request.query_params.get("fait", "")))


@page("/evenements", RS_EVT_WRITE, methods=("POST",))
async def creer(ctx: Ctx) -> Response:
    capacite = ctx.field("capacite")
    if capacite and not capacite.isdigit():
        raise InvalidInput("Capacité: un nombre de places est attendu")
    try:
        data = Evenement(
            titre=ctx.field("titre"), description=ctx.field("description") or None,
            type_evenement=ctx.field("type"), date_debut=parse_moment(ctx.field("debut"), "Début"),
            date_fin=parse_moment(ctx.field("fin"), "Fin"), lieu=ctx.field("lieu") or None,
            capacite_max=int(capacite) if capacite else None, liste_attente_active=ctx.field("attente") == "1",
            inscription_requise=True, date_limite_inscription=parse_moment(ctx.field("limite"), "Limite", False),
            visibilite=Visibilite(ctx.field("visibilite") or "MEMBRES"))
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:
        raise InvalidInput("Visibilité inconnue") from None
    created = await evenements.creer(ctx.db, ctx.auth, data)
    return redirect(f"/evenements/{created.id}?fait=cree")


@page("/evenements/{id}", RS_EVT_READ2)
async def fiche(ctx: Ctx) -> Response:
    evenement_id = parse_id(ctx.request.path_params["id"])
    evt = await evenements.evenement(ctx.db, ctx.auth, evenement_id)
    gere = RS_EVT_WRITE.allows(ctx.auth.roles) and ctx.can(Permission.EVENEMENT_GERER, evt.organisation_id)
    mienne = next((i for i in await evenements.mes_inscriptions(ctx.db, ctx.auth)
                   if i.evenement_id == evt.id and i.statut != StatutInscription.ANNULEE), None)
    return ctx.render("evenement.html", evt=evt, mienne=mienne,
                      participants=await evenements.participants(ctx.db, ctx.auth, evt.id),
                      attente=await evenements.liste_attente(ctx.db, ctx.auth, evt.id) if gere else None,
                      peut_inscrire=ctx.auth.membre_id is not None and RS_EVT_INSCRIPTION.allows(ctx.auth.roles),
                      message=MESSAGES.get(ctx.request.query_params.get("fait", "")))


@page("/evenements/{id}/inscription", RS_EVT_INSCRIPTION, methods=("POST",), again="/evenements/{id}")
async def inscrire(ctx: Ctx) -> Response:
    evenement_id = parse_id(ctx.request.path_params["id"])
    inscription = await evenements.inscrire(ctx.db, ctx.auth, evenement_id)
    fait = "attente" if inscription.statut == StatutInscription.EN_ATTENTE else "inscrit"
    return redirect(f"/evenements/{evenement_id}?fait={fait}")


@page("/evenements/{id}/desinscription", RS_EVT_INSCRIPTION, methods=("POST",), again="/evenements/{id}")
async def desinscrire(ctx: Ctx) -> Response:
    evenement_id = parse_id(ctx.request.path_params["id"])
    await evenements.desinscrire(ctx.db, ctx.auth, evenement_id)
    return redirect(f"/evenements/{evenement_id}?fait=desinscrit")
