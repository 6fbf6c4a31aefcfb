"""Personal data (Loi 2008-12): consents, the access log of members' files, the register of processings.
Extension routes: the spec has no such area (docs/donnees-personnelles.md)."""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Any

from fastapi import Depends, Path, Query, Request
from fastapi.responses import Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import (
    RS_ACCES_DOSSIER,
    RS_ACCES_DOSSIER_ORGANISATION,
    RS_ANY_AUTHENTICATED,
    RS_CONSENTEMENT,
    RS_CONSENTEMENT_LECTURE,
    RS_REGISTRE_TRAITEMENTS,
)
from unionflow.core.routing import area_router
from unionflow.core.tableaux import fichier
from unionflow.donnees_personnelles.acces_service import AccesDossierService
from unionflow.donnees_personnelles.formulaire import formulaire
from unionflow.donnees_personnelles.registre_service import RegistreService
from unionflow.donnees_personnelles.schemas import (
    AccesDossierResponse,
    ConsentementResponse,
    CreateConsentementRequest,
    CreateRecepisseTraitementRequest,
    NoticeResponse,
    RecepisseTraitementResponse,
    RegistreTraitementsResponse,
)
from unionflow.donnees_personnelles.service import ConsentementService, notices
from unionflow.models.donnees_personnelles import FinaliteConsentement

TAG = "Données personnelles"
EXT = "Extension (loi n° 2008-12 sur les données personnelles). "
router = area_router("/api/donnees-personnelles", TAG)
moi_router = area_router("/api/moi", TAG)
conformite_router = area_router("/api/conformite", TAG)

JOURNAL = ("Une ligne par lecture de la fiche d'un membre par quelqu'un d'autre que lui (API: `GET "
           "/api/membres/{id}`, `/api/membres/numero/{numero}`, `/api/membres/{id}/organisations`, "
           "`/api/adhesions/membre/{membreId}`, "
           "`/api/cotisations/membre/{membreId}`; console: la page du membre): qui (nom, rôles), quand, quel écran, "
           "pour quelle organisation. Plus récentes d'abord.")


class FormatRegistre(StrEnum):
    JSON = "json"
    PDF = "pdf"


@router.get("/notices", response_model=list[NoticeResponse], responses=problems(404),
            summary="Notices d'information en vigueur",
            description=EXT + "Le texte lu par le membre avant de consentir (loi n° 2008-12, art. 58), par finalité, "
                              "avec sa version (à renvoyer dans `noticeVersion`). Le responsable du traitement "
                              "est l'organisation à qui le consentement est donné: chaque texte la nomme "
                              "(`organisationId` de la réponse). `organisationId` (facultatif): les notices de "
                              "cette organisation (hors de vue: 404); sans lui, celles de chaque organisation dont "
                              "l'appelant est membre (et de son organisation active), par nom; aucune: liste "
                              "vide. Le texte rendu est conservé avec le consentement, tel que lu.")
async def list_notices(request: Request, session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                       organisation_id: uuid.UUID | None = Query(None, alias="organisationId")
                       ) -> list[NoticeResponse]:
    return await notices(session, auth, request.app.state.settings, organisation_id)


@router.get("/notices/formulaire", response_class=Response,
            responses={200: {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}},
                       **problems(403, 404)},
            summary="Formulaire de consentement à imprimer",
            description=EXT + "La feuille que le membre lit et signe au secrétariat (loi n° 2008-12, art. 41 2°: "
                              "un consentement écrit; art. 58: la notice): la notice de `finalite` rendue pour "
                              "l'organisation, l'identité du membre (`membreId`: remplie; sans lui: lignes à "
                              "remplir), les cases « je consens » / « je ne consens pas », lieu, date, signatures "
                              "du membre et du secrétariat, la version et le début de l'empreinte SHA-256 du "
                              "texte (celle que UnionFlow conserve avec le consentement enregistré en canal "
                              "PAPIER). Organisation hors de vue: 404. Avec `membreId`: le membre lui-même, ou "
                              "qui enregistre les consentements dans l'organisation (`consentement.recueillir`, "
                              "403 sinon); membre hors de vue: 404.")
async def formulaire_consentement(request: Request, session: SessionDep,
                                  auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                                  organisation_id: uuid.UUID = Query(alias="organisationId"),
                                  finalite: FinaliteConsentement = Query(),
                                  membre_id: uuid.UUID | None = Query(None, alias="membreId")) -> Response:
    content = await formulaire(session, auth, request.app.state.settings, organisation_id, finalite, membre_id)
    return fichier(content, "application/pdf", f"consentement-{finalite.value.lower()}.pdf")


@router.post("/consentements", status_code=201, response_model=ConsentementResponse, responses=problems(404, 409),
             summary="Enregistrer un consentement",
             description=EXT + "Consentement au traitement de données sensibles (ADHESION_SYNDICALE: appartenance "
                               "syndicale; SANTE_AIDE: données de santé d'une demande d'aide MALADIE), donné à une "
                               "organisation. Le membre pour lui-même (sans `membreId`), ou le secrétariat "
                               "(`consentement.recueillir`: ADMIN_ORGANISATION, SECRETAIRE) pour un membre de "
                               "l'organisation, canal PAPIER (formulaire signé). Date, version de la notice, "
                               "auteur de la saisie et canal sont conservés. 409 si un consentement de la même "
                               "finalité est déjà en vigueur; 400 `regle-metier` si la version de notice n'est pas "
                               "celle en vigueur.")
async def create_consentement(request: Request, data: CreateConsentementRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_CONSENTEMENT)) -> ConsentementResponse:
    return await ConsentementService(session, auth, request.app.state.settings).recueillir(data)


@router.post("/consentements/{id}/retrait", response_model=ConsentementResponse, responses=problems(404),
             summary="Retirer un consentement",
             description=EXT + "Par le membre lui-même ou le secrétariat (`consentement.recueillir`). La ligne est "
                               "datée (retrait, auteur) et conservée: l'historique n'est jamais réécrit. Déjà "
                               "retiré: 400 `invalid-state`.")
async def retirer_consentement(request: Request, id: uuid.UUID, session: SessionDep,
                               auth: AuthContext = authorize(RS_CONSENTEMENT)) -> ConsentementResponse:
    return await ConsentementService(session, auth, request.app.state.settings).retirer(id)


@router.get("/membres/{membreId}/consentements", response_model=list[ConsentementResponse],
            responses=problems(404), summary="Consentements d'un membre",
            description=EXT + "Historique complet (retirés compris), plus récents d'abord. Le membre lui-même; "
                              "le secrétariat, le président et l'administrateur de l'organisation à qui le "
                              "consentement a été donné; le DELEGUE_PROTECTION_DONNEES de ses organisations; "
                              "SUPER_ADMIN/ADMIN. Membre hors de vue: 404.")
async def list_consentements_membre(request: Request, session: SessionDep,
                                    membre_id: uuid.UUID = Path(alias="membreId"),
                                    auth: AuthContext = authorize(RS_CONSENTEMENT_LECTURE)
                                    ) -> list[ConsentementResponse]:
    return await ConsentementService(session, auth, request.app.state.settings).du_membre(membre_id)


@router.get("/membres/{membreId}/acces", response_model=Page[AccesDossierResponse], responses=problems(404),
            summary="Journal des accès à la fiche d'un membre",
            description=EXT + JOURNAL + " Le membre lui-même, le DELEGUE_PROTECTION_DONNEES d'une de ses "
                                        "organisations, SUPER_ADMIN/ADMIN; un autre membre: 404.")
async def list_acces_membre(session: SessionDep, membre_id: uuid.UUID = Path(alias="membreId"),
                            auth: AuthContext = authorize(RS_ACCES_DOSSIER),
                            params: PageParams = Depends(paging(20))) -> Page[AccesDossierResponse]:
    return await AccesDossierService(session, auth).du_membre(membre_id, params)


@router.get("/acces", response_model=Page[AccesDossierResponse], responses=problems(404),
            summary="Journal des accès aux fiches des membres",
            description=EXT + JOURNAL + " Pour le DELEGUE_PROTECTION_DONNEES: les fiches des membres de ses "
                                        "organisations (`organisationId` en restreint une; hors des siennes: 404).")
async def list_acces(session: SessionDep, auth: AuthContext = authorize(RS_ACCES_DOSSIER_ORGANISATION),
                     params: PageParams = Depends(paging(20)),
                     organisation_id: uuid.UUID | None = Query(None, alias="organisationId")
                     ) -> Page[AccesDossierResponse]:
    return await AccesDossierService(session, auth).lister(organisation_id, params)


@moi_router.get("/acces", response_model=Page[AccesDossierResponse], responses=problems(404),
                summary="Qui a consulté ma fiche",
                description=EXT + JOURNAL + " 404 si aucune fiche membre n'est liée au compte.")
async def mes_acces(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                    params: PageParams = Depends(paging(20))) -> Page[AccesDossierResponse]:
    return await AccesDossierService(session, auth).miens(params)


@moi_router.get("/consentements", response_model=list[ConsentementResponse], responses=problems(404),
                summary="Mes consentements",
                description=EXT + "Historique de mes consentements (retirés compris). 404 si aucune fiche membre "
                                  "n'est liée au compte.")
async def mes_consentements(request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> list[ConsentementResponse]:
    return await ConsentementService(session, auth, request.app.state.settings).miens()


@conformite_router.get("/traitements", response_model=RegistreTraitementsResponse,
                       responses={200: {"content": {"application/pdf": {"schema": {"type": "string",
                                                                                    "format": "binary"}}}},
                                  **problems(404)},
                       summary="Registre des traitements de données personnelles",
                       description=EXT + "Généré à partir des déclarations du code (un `traitements.py` par "
                                         "domaine): finalité, base légale, catégories de données, personnes "
                                         "concernées, destinataires, durée de conservation, transferts hors du "
                                         "Sénégal; pour l'organisation (`organisationId`, défaut: l'organisation "
                                         "active, ou la seule dont l'appelant tient le registre), la déclaration "
                                         "à la CDP de chaque traitement: `statutDeclaration` DECLARE avec son "
                                         "`recepisse`, ou NON_DECLARE (« non déclaré »). `format=pdf`: le tableau "
                                         "imprimable pour la déclaration à la CDP. ADMIN_ORGANISATION, "
                                         "DELEGUE_PROTECTION_DONNEES (de leur organisation, sinon 404), "
                                         "SUPER_ADMIN/ADMIN.")
async def registre_traitements(request: Request, session: SessionDep,
                               auth: AuthContext = authorize(RS_REGISTRE_TRAITEMENTS),
                               fmt: FormatRegistre = Query(FormatRegistre.JSON, alias="format"),
                               organisation_id: uuid.UUID | None = Query(None, alias="organisationId")) -> Any:
    service = RegistreService(session, auth, request.app.state.settings)
    if fmt is FormatRegistre.JSON:
        return await service.registre(organisation_id)
    content = await service.pdf(organisation_id)
    return Response(content, media_type="application/pdf",
                    headers={"Content-Disposition": 'attachment; filename="registre-traitements.pdf"'})


@conformite_router.post("/traitements/{code}/recepisse", response_model=RecepisseTraitementResponse,
                        responses=problems(404),
                        summary="Enregistrer le récépissé de la CDP d'un traitement (extension)",
                        description=EXT + "Art. 18: un traitement est déclaré à la Commission de protection des "
                                          "données personnelles, qui délivre un récépissé; seule sa réception "
                                          "permet de le mettre en œuvre. Enregistre "
                                          "pour l'organisation le numéro et la date du récépissé du traitement "
                                          "`code` du registre (et la date de la déclaration si connue); un second "
                                          "envoi corrige le premier (l'audit garde les anciennes valeurs, "
                                          "ENREGISTRER_RECEPISSE). Permission `donnees.recepisse.enregistrer`: "
                                          "administrateur de l'organisation, son délégué à la protection des "
                                          "données, SUPER_ADMIN/ADMIN (sinon 403). 404: traitement inconnu du "
                                          "registre, organisation dont l'appelant ne tient pas le registre. 400 "
                                          "`regle-metier`: un récépissé daté dans le futur, une déclaration "
                                          "postérieure à son récépissé.")
async def enregistrer_recepisse(request: Request, data: CreateRecepisseTraitementRequest, session: SessionDep,
                                code: str = Path(..., pattern=r"^[A-Z][A-Z_]{0,39}$",
                                                 description="Code du traitement au registre"),
                                auth: AuthContext = authorize(RS_REGISTRE_TRAITEMENTS),
                                ) -> RecepisseTraitementResponse:
    return await RegistreService(session, auth, request.app.state.settings).enregistrer_recepisse(code, data)
