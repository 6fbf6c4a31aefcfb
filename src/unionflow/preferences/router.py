from __future__ import annotations

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_NOTIFICATION_MES
from unionflow.core.routing import area_router
from unionflow.preferences.schemas import PreferencesResponse, UpdatePreferencesRequest
from unionflow.preferences.service import PreferenceService

router = area_router("/api/preferences", "Préférences")


@router.get("/me", response_model=PreferencesResponse, responses=problems(404), summary="Mes préférences",
            description="Valeurs par défaut (fr, SYSTEME, aucun refus) tant que rien n'a été enregistré. "
                        "404 si le compte n'a pas de fiche membre.")
async def mes_preferences(session: SessionDep,
                          auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> PreferencesResponse:
    return await PreferenceService(session, auth).obtenir()


@router.put("/me", response_model=PreferencesResponse, responses=problems(404),
            summary="Modifier mes préférences",
            description="Champs omis (ou null) inchangés; `canauxParType` remplace l'ensemble précédent. Un type "
                        "associé à [] ou `refusNonObligatoires=true` coupe les notifications non obligatoires; les "
                        "types de `typesObligatoires` (rappels de cotisation, reçus, annulations et confirmations "
                        "d'inscription, décisions d'aide, webhook désactivé) sont toujours envoyés, sur les canaux "
                        "choisis s'il y en a.")
async def modifier_preferences(data: UpdatePreferencesRequest, session: SessionDep,
                               auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> PreferencesResponse:
    return await PreferenceService(session, auth).modifier(data)
