"""Member: his notification preferences (which notices, by which channel, in which language). The API's operations
(``PreferenceService.obtenir`` / ``modifier``, GET and PUT /api/preferences/me, role set RS-NOTIFICATION-MES).

Each kind of notice is a row: channels ticked = those channels; « Ne pas recevoir » = [] (refused, unless the kind
is mandatory, which the page says); nothing ticked = the default channels (the kind is left out of the request)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.core.roles import RS_NOTIFICATION_MES
from unionflow.models.notification import Canal, Langue, TypeNotification
from unionflow.preferences.schemas import UpdatePreferencesRequest
from unionflow.preferences.service import PreferenceService

LIBELLES = {
    "INFORMATION": "Informations du bureau", "INVITATION_EVENEMENT": "Invitations aux événements",
    "RAPPEL_COTISATION": "Rappels de cotisation", "RECU_PAIEMENT": "Reçus de paiement",
    "EVENEMENT_ANNULE": "Événement annulé", "INSCRIPTION_CONFIRMEE": "Inscription confirmée",
    "DECISION_AIDE": "Décision sur une demande d'aide", "APPROBATION_EN_ATTENTE": "Demandes à approuver",
    "WEBHOOK_DESACTIVE": "Webhook désactivé", "DECLARATION_REJETEE": "Paiement déclaré rejeté",
    "PAIEMENT_ANNULE": "Paiement annulé", "PAIEMENT_REMBOURSE": "Paiement remboursé",
    "AIDE_VERSEE": "Aide versée", "AVOIR_DOUBLE_PAIEMENT": "Paiement gardé en avoir"}
CANAUX = {"EMAIL": "E-mail", "SMS": "SMS", "IN_APP": "Dans l'application"}
LANGUES = {"fr": "Français", "en": "English", "wo": "Wolof"}


@page("/moi/preferences", RS_NOTIFICATION_MES)
async def preferences(ctx: Ctx) -> Response:
    found = await PreferenceService(ctx.db, ctx.auth).obtenir()
    return ctx.render("preferences.html", preferences=found, types=[t.value for t in TypeNotification],
                      libelles=LIBELLES, canaux=CANAUX, langues=LANGUES,
                      obligatoires={t.value for t in found.types_obligatoires},
                      fait=ctx.request.query_params.get("fait") == "1")


@page("/moi/preferences", RS_NOTIFICATION_MES, methods=("POST",))
async def enregistrer(ctx: Ctx) -> Response:
    assert ctx.form is not None
    choisis: dict[str, list[str]] = {}
    for kind in TypeNotification:
        canaux = [c.value for c in Canal if ctx.field(f"{kind.value}:{c.value}") == "1"]
        if canaux or ctx.field(f"{kind.value}:AUCUN") == "1":
            choisis[kind.value] = canaux  # ticked channels win over « Ne pas recevoir » ticked with them
    body: dict[str, Any] = {"langue": ctx.field("langue") or Langue.FR.value, "canauxParType": choisis,
                            "refusNonObligatoires": ctx.field("refus") == "1"}
    await PreferenceService(ctx.db, ctx.auth).modifier(UpdatePreferencesRequest.model_validate(body))
    return redirect("/moi/preferences?fait=1")
