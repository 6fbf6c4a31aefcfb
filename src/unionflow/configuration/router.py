from __future__ import annotations

from fastapi import Path

from unionflow.configuration.schemas import ConfigurationResponse, UpdateConfigurationRequest
from unionflow.configuration.service import ConfigurationService
from unionflow.core.auth import AuthContext, SessionDep, authorize
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_CONF
from unionflow.core.routing import area_router

router = area_router("/api/configuration", "Configuration")


@router.get("", response_model=list[ConfigurationResponse], summary="Toutes les entrées de configuration",
            description="Valeurs effectives triées par clé: les valeurs intégrées (`parDefaut: true`, ex. "
                        "`devise.defaut`, `cotisation.jour_echeance`, `lcbft.seuil_declaration`) et les clés "
                        "modifiées ou créées.")
async def list_configuration(session: SessionDep,
                             auth: AuthContext = authorize(RS_CONF)) -> list[ConfigurationResponse]:
    return await ConfigurationService(session, auth).list()


@router.get("/{cle}", response_model=ConfigurationResponse, summary="Consulter une entrée",
            description="404 si la clé n'existe ni en valeur intégrée ni en base.")
async def get_configuration(session: SessionDep, cle: str,
                            auth: AuthContext = authorize(RS_CONF)) -> ConfigurationResponse:
    return await ConfigurationService(session, auth).get(cle)


@router.put("/{cle}", response_model=ConfigurationResponse, responses=problems(400),
            summary="Modifier ou créer une entrée",
            description="Crée la clé si elle n'existe pas (PUT idempotent sur la ressource `cle`), sinon la modifie. "
                        "`valeur` est validée contre le type de la clé (STRING, NUMBER, BOOLEAN, JSON) et les bornes "
                        "des valeurs intégrées; le type d'une clé ne change jamais (400). Clé: minuscules, chiffres, "
                        "`_`, segments séparés par des points. Journalisé avec valeurs avant/après.")
async def put_configuration(data: UpdateConfigurationRequest, session: SessionDep, cle: str = Path(max_length=200),
                            auth: AuthContext = authorize(RS_CONF)) -> ConfigurationResponse:
    return await ConfigurationService(session, auth).put(cle, data)
