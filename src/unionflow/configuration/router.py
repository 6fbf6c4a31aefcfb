from __future__ import annotations

import uuid

from fastapi import Path, Query

from unionflow.configuration.organisation_service import ConfigurationOrganisationService
from unionflow.configuration.referentiel import ReferentielService
from unionflow.configuration.schemas import (
    CLE_PATTERN,
    ChoisirReferentielRequest,
    ConfigurationOrganisationResponse,
    ConfigurationResponse,
    ReferentielComptableResponse,
    UpdateConfigurationOrganisationRequest,
    UpdateConfigurationRequest,
)
from unionflow.configuration.service import ConfigurationService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_CONF, RS_TRESORERIE, RS_TRESORERIE_READ
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


ORGANISATION = Path(alias="organisationId")


@router.get("/organisations/{organisationId}", response_model=list[ConfigurationOrganisationResponse],
            responses=problems(404), summary="Paramètres propres à une organisation",
            description="Extension. Bureau de l'organisation: les clés réglables par organisation "
                        "(`cotisations.avoir.imputation_automatique`; extension: le barème des cotisations "
                        "`cotisations.bareme.<mensuelle|trimestrielle|semestrielle|annuelle>`, montant par membre "
                        "proposé à la génération, 0 = pas de barème) avec leur valeur effective — propre à "
                        "l'organisation (`propre: true`) ou celle de l'installation.")
async def list_configuration_organisation(session: SessionDep, organisation_id: uuid.UUID = ORGANISATION,
                                          auth: AuthContext = authorize(RS_TRESORERIE)
                                          ) -> list[ConfigurationOrganisationResponse]:
    return await ConfigurationOrganisationService(session, auth).lister(organisation_id)


@router.get("/organisations/{organisationId}/referentiel-comptable", response_model=ReferentielComptableResponse,
            responses=problems(404), summary="Référentiel comptable de l'organisation",
            description="Extension. Trésorier, président, administrateur de l'organisation, commissaire aux "
                        "comptes, ADMIN (RS-TRESORERIE-READ): le référentiel en vigueur pour `exercice` (défaut: "
                        "l'année en cours) — SYCEBNL_NORMAL, SYCEBNL_SMT (système minimal de trésorerie) ou PCMS "
                        "(mutuelle sociale agréée, UEMOA) — et l'historique des choix. Sans choix: SYCEBNL_NORMAL "
                        "(`parDefaut: true`), une mutuelle comprise.")
async def get_referentiel_comptable(session: SessionDep, organisation_id: uuid.UUID = ORGANISATION,
                                    exercice: int | None = Query(None, ge=2000, le=2100),
                                    auth: AuthContext = authorize(RS_TRESORERIE_READ)
                                    ) -> ReferentielComptableResponse:
    return await ReferentielService(session, auth).obtenir(organisation_id, exercice)


@router.post("/organisations/{organisationId}/referentiel-comptable", response_model=ReferentielComptableResponse,
             status_code=201,
             responses=problems(400, 403, 404), summary="Choisir le référentiel comptable de l'organisation",
             description="Extension. Permission referentiel_comptable.choisir (président ou administrateur de "
                         "l'organisation, ADMIN; 403 sinon). Le choix vaut à partir de `exercice`; les choix "
                         "précédents restent dans l'historique; journalisé (CHOISIR_REFERENTIEL). Règles métier "
                         "(400 `regle-metier`): PCMS seulement pour une organisation de type MUTUELLE et avec "
                         "`referenceAgrement`; `referenceAgrement` seulement pour PCMS.")
async def post_referentiel_comptable(data: ChoisirReferentielRequest, session: SessionDep,
                                     organisation_id: uuid.UUID = ORGANISATION,
                                     auth: AuthContext = authorize(RS_TRESORERIE_READ)
                                     ) -> ReferentielComptableResponse:
    return await ReferentielService(session, auth).choisir(organisation_id, data)


@router.put("/organisations/{organisationId}/{cle}", response_model=ConfigurationOrganisationResponse,
            responses=problems(400, 403, 404), summary="Régler un paramètre pour une organisation",
            description="Extension. Permission configuration_organisation.gerer (administrateur ou "
                        "trésorier de l'organisation, 403 sinon); 404 pour une clé non réglable par organisation; "
                        "valeur validée contre le type de la clé (400). Journalisé avec valeurs avant/après.")
async def put_configuration_organisation(data: UpdateConfigurationOrganisationRequest, session: SessionDep,
                                         organisation_id: uuid.UUID = ORGANISATION,
                                         cle: str = Path(max_length=100, pattern=CLE_PATTERN),
                                         auth: AuthContext = authorize(RS_TRESORERIE)
                                         ) -> ConfigurationOrganisationResponse:
    return await ConfigurationOrganisationService(session, auth).definir(organisation_id, cle, data)
