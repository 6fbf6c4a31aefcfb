"""The member's data (Loi 2008-12): access (export JSON/PDF), erasure and opposition requests (extension,
docs/conformite.md)."""

from __future__ import annotations

import uuid

from fastapi import Path, Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_DONNEES_DECIDE, RS_DONNEES_MEMBRE, RS_MEMBRE_WRITE
from unionflow.core.routing import area_router
from unionflow.donnees_membre.effacement_service import EffacementService
from unionflow.donnees_membre.opposition_service import OppositionService
from unionflow.donnees_membre.pdf import rendre
from unionflow.donnees_membre.schemas import (
    ApprouverOppositionRequest,
    CreateEffacementRequest,
    CreateOppositionRequest,
    DecisionEffacementRequest,
    DonneesMembreResponse,
    EffacementResponse,
    OppositionResponse,
    RejetEffacementRequest,
    RejeterOppositionRequest,
    RetirerOppositionRequest,
)
from unionflow.donnees_membre.service import DonneesService
from unionflow.models.approbation import TypeDecision
from unionflow.models.membre import Membre

router = area_router("/api", "Membres")

ACCES = ("Extension, hors spécification. Droit d'accès (Loi n° 2008-12, art. 62): toutes les données qui nomment "
         "le membre, table par table (identité, appartenances, adhésions, cotisations, paiements et reçus, avoirs, "
         "demandes et propositions d'aide, événements, notifications, SMS, messages, documents — métadonnées —, "
         "avis, suggestions, tickets, compte de connexion et sessions); secrets masqués (`***`). Les alertes LCB-FT "
         "ne sont pas communiquées (interdiction d'avertir la personne).")
EFFACEMENT = ("Extension, hors spécification. Effacement (Loi n° 2008-12): une seconde personne décide (président, "
              "administrateur ou délégué à la protection des données de l'organisation, jamais le demandeur). "
              "L'approbation pseudonymise l'identité (« Membre effacé #… ») partout où elle s'affiche, désactive la "
              "connexion et garde les montants, reçus, écritures et l'audit pour la durée de conservation des livres. "
              "`reponse` dit au membre ce qui a été fait.")
OPPOSITION = ("Extension, hors spécification. Droit d'opposition (Loi n° 2008-12): le membre s'oppose, pour "
              "des raisons légitimes, à un traitement du registre des traitements marqué `opposable` (rappels de "
              "cotisation par SMS et e-mail, informations, invitations et prospection), et sans frais ni "
              "justification à la prospection; les traitements requis par la loi, le contrat ou l'adhésion "
              "(comptabilité, registre des membres, reçus, audit) sont refusés (409). Une seconde personne décide "
              "(président, administrateur ou délégué à la protection des données de l'organisation, jamais le "
              "demandeur ni le membre concerné). Approuvée, l'opposition est en vigueur (`enVigueur`): le membre "
              "ne reçoit plus ce que le traitement lui envoyait; il la retire quand il veut. `reponse` dit au "
              "membre où en est sa demande.")
PDF: dict[int | str, dict[str, object]] = {
    200: {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
          "description": "Données personnelles en PDF"}, **problems(403, 404)}
ID = Path(..., alias="id")


def _issuer(request: Request) -> str:
    return str(request.app.state.settings.issuer)


def _pdf(membre: Membre, donnees: DonneesMembreResponse, auth: AuthContext) -> Response:
    return Response(rendre(membre, donnees, auth.actor_name), media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="donnees-{membre.numero_membre}.pdf"'})


@router.get("/moi/donnees", response_model=DonneesMembreResponse, responses=problems(404),
            summary="Mes données personnelles (JSON)", description="Le membre lié au compte. " + ACCES)
async def mes_donnees(request: Request, session: SessionDep,
                      auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> DonneesMembreResponse:
    return (await DonneesService(session, auth, _issuer(request)).mes_donnees())[1]


@router.get("/moi/donnees.pdf", response_class=Response, responses=PDF,
            summary="Mes données personnelles (PDF lisible)", description="Le membre lié au compte. " + ACCES)
async def mes_donnees_pdf(request: Request, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> Response:
    membre, donnees = await DonneesService(session, auth, _issuer(request)).mes_donnees()
    return _pdf(membre, donnees, auth)


@router.get("/membres/{id}/donnees", response_model=DonneesMembreResponse, responses=problems(403, 404),
            summary="Données personnelles d'un membre (JSON)",
            description="Président ou administrateur d'une organisation du membre (SUPER_ADMIN partout); export "
                        "tracé dans l'audit (EXPORTER_DONNEES). " + ACCES)
async def donnees_du_membre(request: Request, session: SessionDep, membre_id: uuid.UUID = ID,
                            auth: AuthContext = authorize(RS_DONNEES_MEMBRE)) -> DonneesMembreResponse:
    return (await DonneesService(session, auth, _issuer(request)).donnees_du_membre(membre_id))[1]


@router.get("/membres/{id}/donnees.pdf", response_class=Response, responses=PDF,
            summary="Données personnelles d'un membre (PDF)",
            description="Mêmes règles que la version JSON. " + ACCES)
async def donnees_du_membre_pdf(request: Request, session: SessionDep, membre_id: uuid.UUID = ID,
                                auth: AuthContext = authorize(RS_DONNEES_MEMBRE)) -> Response:
    membre, donnees = await DonneesService(session, auth, _issuer(request)).donnees_du_membre(membre_id)
    return _pdf(membre, donnees, auth)


@router.post("/moi/donnees/effacement", response_model=EffacementResponse, status_code=201,
             responses=problems(404, 409), summary="Demander l'effacement de mes données",
             description="Une demande en attente par membre (409). " + EFFACEMENT)
async def demander_mon_effacement(data: CreateEffacementRequest, request: Request, session: SessionDep,
                                  auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> EffacementResponse:
    return await EffacementService(session, auth, _issuer(request)).demander(None, data.motif)


@router.post("/membres/{id}/donnees/effacement", response_model=EffacementResponse, status_code=201,
             responses=problems(403, 404, 409), summary="Demander l'effacement des données d'un membre",
             description="Gestionnaires du registre de son organisation (membre.gerer), pour le membre. " + EFFACEMENT)
async def demander_effacement(data: CreateEffacementRequest, request: Request, session: SessionDep,
                              membre_id: uuid.UUID = ID,
                              auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> EffacementResponse:
    return await EffacementService(session, auth, _issuer(request)).demander(membre_id, data.motif)


@router.get("/donnees/effacements/{id}", response_model=EffacementResponse, responses=problems(404),
            summary="Consulter une demande d'effacement",
            description="Son demandeur, les décideurs et les gestionnaires du registre de l'organisation. "
                        + EFFACEMENT)
async def consulter_effacement(request: Request, session: SessionDep, demande_id: uuid.UUID = ID,
                               auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> EffacementResponse:
    return await EffacementService(session, auth, _issuer(request)).obtenir(demande_id)


@router.post("/donnees/effacements/{id}/approuver", response_model=EffacementResponse,
             responses=problems(403, 404, 409), summary="Approuver un effacement (l'identité est pseudonymisée)",
             description="Demande EN_ATTENTE seulement (400 sinon). " + EFFACEMENT)
async def approuver_effacement(data: DecisionEffacementRequest, request: Request, session: SessionDep,
                               demande_id: uuid.UUID = ID,
                               auth: AuthContext = authorize(RS_DONNEES_DECIDE)) -> EffacementResponse:
    return await EffacementService(session, auth, _issuer(request)).decider(
        demande_id, TypeDecision.APPROUVEE, data.commentaire)


@router.post("/donnees/effacements/{id}/rejeter", response_model=EffacementResponse,
             responses=problems(403, 404), summary="Rejeter un effacement",
             description="Commentaire obligatoire: il est la réponse donnée au membre. " + EFFACEMENT)
async def rejeter_effacement(data: RejetEffacementRequest, request: Request, session: SessionDep,
                             demande_id: uuid.UUID = ID,
                             auth: AuthContext = authorize(RS_DONNEES_DECIDE)) -> EffacementResponse:
    return await EffacementService(session, auth, _issuer(request)).decider(
        demande_id, TypeDecision.REJETEE, data.commentaire)


@router.post("/moi/donnees/oppositions", response_model=OppositionResponse, status_code=201,
             responses=problems(400, 404, 409), summary="M'opposer à un traitement de mes données",
             description="Une demande en attente par traitement, pas de seconde opposition en vigueur (409). "
                         + OPPOSITION)
async def demander_mon_opposition(data: CreateOppositionRequest, session: SessionDep,
                                  auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> OppositionResponse:
    return await OppositionService(session, auth).demander(None, data.traitement, data.motif)


@router.get("/moi/donnees/oppositions", response_model=list[OppositionResponse], responses=problems(404),
            summary="Mes oppositions à des traitements",
            description="Toutes mes demandes d'opposition (en attente, en vigueur, refusées, retirées), les plus "
                        "récentes d'abord (100 au plus). " + OPPOSITION)
async def mes_oppositions(session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> list[OppositionResponse]:
    return await OppositionService(session, auth).miennes()


@router.post("/membres/{id}/donnees/oppositions", response_model=OppositionResponse, status_code=201,
             responses=problems(400, 403, 404, 409), summary="Demander l'opposition d'un membre à un traitement",
             description="Gestionnaires du registre de son organisation (donnees.opposition.demander), pour le "
                         "membre (sa demande écrite). " + OPPOSITION)
async def demander_opposition(data: CreateOppositionRequest, session: SessionDep, membre_id: uuid.UUID = ID,
                              auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> OppositionResponse:
    return await OppositionService(session, auth).demander(membre_id, data.traitement, data.motif)


@router.get("/donnees/oppositions/{id}", response_model=OppositionResponse, responses=problems(404),
            summary="Consulter une demande d'opposition",
            description="Son demandeur, le membre concerné, les décideurs et les gestionnaires du registre de "
                        "l'organisation. " + OPPOSITION)
async def consulter_opposition(session: SessionDep, demande_id: uuid.UUID = ID,
                               auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> OppositionResponse:
    return await OppositionService(session, auth).obtenir(demande_id)


@router.post("/donnees/oppositions/{id}/approuver", response_model=OppositionResponse,
             responses=problems(403, 404, 409), summary="Approuver une opposition (elle entre en vigueur)",
             description="Demande EN_ATTENTE seulement (400 sinon). " + OPPOSITION)
async def approuver_opposition(data: ApprouverOppositionRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                               auth: AuthContext = authorize(RS_DONNEES_DECIDE)) -> OppositionResponse:
    return await OppositionService(session, auth).decider(demande_id, TypeDecision.APPROUVEE, data.commentaire)


@router.post("/donnees/oppositions/{id}/rejeter", response_model=OppositionResponse,
             responses=problems(403, 404), summary="Rejeter une opposition",
             description="Commentaire obligatoire: il est la réponse donnée au membre. " + OPPOSITION)
async def rejeter_opposition(data: RejeterOppositionRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                             auth: AuthContext = authorize(RS_DONNEES_DECIDE)) -> OppositionResponse:
    return await OppositionService(session, auth).decider(demande_id, TypeDecision.REJETEE, data.commentaire)


@router.post("/donnees/oppositions/{id}/retirer", response_model=OppositionResponse,
             responses=problems(403, 404), summary="Retirer une opposition",
             description="Le membre concerné (ou un gestionnaire du registre pour lui): une demande en attente est "
                         "retirée; une opposition en vigueur est levée, datée, et le traitement s'applique de "
                         "nouveau. L'historique est conservé. " + OPPOSITION)
async def retirer_opposition(data: RetirerOppositionRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                             auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> OppositionResponse:
    return await OppositionService(session, auth).retirer(demande_id, data.motif)
