from __future__ import annotations

from fastapi import Path

from unionflow.configuration.schemas import CLE_PATTERN, ConfigurationResponse, UpdateConfigurationRequest
from unionflow.configuration.service import ConfigurationService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_CONF
from unionflow.core.routing import area_router

router = area_router("/api/configuration", "Configuration")


@router.get("", response_model=list[ConfigurationResponse], summary="Toutes les entrées de configuration",
            description="Valeurs effectives des clés définies, triées par clé (`parDefaut: true` tant qu'une clé "
                        "n'a pas été modifiée): `devise.defaut` (devise d'une organisation créée sans devise), "
                        "`cotisation.jour_echeance` (jour d'échéance d'une cotisation créée ou générée sans "
                        "dateEcheance), `lcbft.*` (seuils de détection), `finance.approbation.*` (seuils "
                        "d'approbation des versements).")
async def list_configuration(session: SessionDep,
                             auth: AuthContext = authorize(RS_CONF)) -> list[ConfigurationResponse]:
    return await ConfigurationService(session, auth).lister()


@router.get("/{cle}", response_model=ConfigurationResponse, responses=problems(404), summary="Consulter une entrée",
            description="404 pour une clé non définie.")
async def get_configuration(session: SessionDep, cle: str,
                            auth: AuthContext = authorize(RS_CONF)) -> ConfigurationResponse:
    return await ConfigurationService(session, auth).obtenir(cle)


@router.put("/{cle}", response_model=ConfigurationResponse, responses=problems(400, 404),
            summary="Modifier une entrée",
            description="Modifie une clé définie (404 sinon: une clé que rien ne lit n'est pas créée). `valeur` est "
                        "validée contre le type de la clé et ses bornes (400): jours entiers, montants à deux "
                        "décimales au plus, devise ISO 4217. Journalisé avec valeurs avant/après. 400 "
                        "`regle-metier`: `valeur` null (obligatoire), de mauvais type ou hors bornes.")
async def put_configuration(data: UpdateConfigurationRequest, session: SessionDep,
                            cle: str = Path(max_length=100, pattern=CLE_PATTERN),
                            auth: AuthContext = authorize(RS_CONF)) -> ConfigurationResponse:
    return await ConfigurationService(session, auth).definir(cle, data)
