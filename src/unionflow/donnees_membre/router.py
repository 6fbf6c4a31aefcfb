"""The member's data (Loi 2008-12): access (export JSON/PDF) and erasure requests (extension, docs/conformite.md)."""

from __future__ import annotations

import uuid

from fastapi import Path, Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_DONNEES_DECIDE, RS_DONNEES_MEMBRE, RS_MEMBRE_WRITE
from unionflow.core.routing import area_router
from unionflow.donnees_membre.effacement_service import EffacementService
from unionflow.donnees_membre.pdf import rendre
from unionflow.donnees_membre.schemas import (
    CreateEffacementRequest,
    DecisionEffacementRequest,
    DonneesMembreResponse,
    EffacementResponse,
    RejetEffacementRequest,
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
EFFACEMENT = ("Extension, hors spécification. Effacement (Loi n° 2008-12): une seconde personne décide (président ou "
              "administrateur de l'organisation, jamais le demandeur). L'approbation pseudonymise l'identité "
              "(« Membre effacé #… ») partout où elle s'affiche, désactive la connexion et garde les montants, "
              "reçus, écritures et l'audit pour la durée de conservation des livres. `reponse` dit au membre ce qui "
              "a été fait.")
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
