from __future__ import annotations

from fastapi import Depends, Query

from unionflow.audit.repository import MODULES_ARGENT
from unionflow.audit.schemas import (
    AuditLogResponse,
    AuditSortField,
    AuditStatistiques,
    CreateAuditLogRequest,
    SortOrder,
)
from unionflow.audit.service import AuditService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_AUDIT, RS_AUDIT_LECTURE
from unionflow.core.routing import area_router
from unionflow.models.audit import Severite

router = area_router("/api/audit", "Audit")

_SCOPE = ("SUPER_ADMIN/ADMIN lisent tout le journal; un ADMIN_ORGANISATION seulement les entrées des organisations "
          "qu'il administre. Extension: le COMMISSAIRE_AUX_COMPTES lit les entrées de son organisation, "
          "le TRESORIER celles de l'argent de son organisation (modules " + ", ".join(sorted(MODULES_ARGENT)) + ").")


@router.get("", response_model=Page[AuditLogResponse], summary="Journal d'audit",
            description="Tri `sortBy` parmi dateHeure, module, severite, typeAction, utilisateur, ipAddress (autre "
                        "valeur: 400), `sortOrder` asc ou desc. " + _SCOPE)
async def list_audit(
    session: SessionDep,
    auth: AuthContext = authorize(RS_AUDIT_LECTURE),
    params: PageParams = Depends(paging(50)),
    sort_by: AuditSortField = Query(AuditSortField.DATE_HEURE, alias="sortBy"),
    sort_order: SortOrder = Query(SortOrder.DESC, alias="sortOrder"),
) -> Page[AuditLogResponse]:
    return await AuditService(session, auth).journal(params, sort_by, sort_order)


@router.post("", response_model=AuditLogResponse, summary="Enregistrer une entrée d'audit",
             description="Utilisateur, adresse IP, user agent, rôle actif et date/heure sont fixés par le serveur. "
                         "`typeAction` et `module` sont mis en majuscules. L'entrée d'un ADMIN_ORGANISATION est "
                         "rattachée à son organisation active (400 s'il en administre plusieurs sans "
                         "X-Active-Organisation-Id). 400 `regle-metier`: `details` au-delà de 16 384 octets "
                         "(sérialisé en JSON). `details` est un objet JSON libre: un caractère de contrôle dans "
                         "une de ses clés ou un de ses textes, à toute profondeur, donne 400 `caractere-controle` "
                         "comme partout.")
async def create_audit(data: CreateAuditLogRequest, session: SessionDep,
                       auth: AuthContext = authorize(RS_AUDIT)) -> AuditLogResponse:
    return await AuditService(session, auth).creer(data)


# What audit.service.parse_bound reads: a day (the whole day) or an RFC 3339 date-time.
_DATE_OU_DATE_HEURE = {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"},
                                 {"type": "null"}]}


@router.post("/rechercher", response_model=Page[AuditLogResponse], summary="Rechercher dans le journal d'audit",
             description="Filtres exacts (module, typeAction sans casse; severite parmi INFO, WARNING, ERROR, "
                         "CRITICAL; utilisateur = e-mail ou identifiant enregistré; ipAddress). `dateDebut` et "
                         "`dateFin` en ISO 8601: une date seule couvre la journée entière (dateFin incluse), une "
                         "date-heure sans fuseau est lue en UTC. Tri date/heure décroissante. " + _SCOPE)
async def search_audit(
    session: SessionDep,
    auth: AuthContext = authorize(RS_AUDIT_LECTURE),
    params: PageParams = Depends(paging(50)),
    date_debut: str | None = Query(None, alias="dateDebut", min_length=10, max_length=40,
                                   json_schema_extra=_DATE_OU_DATE_HEURE),
    date_fin: str | None = Query(None, alias="dateFin", min_length=10, max_length=40,
                                 json_schema_extra=_DATE_OU_DATE_HEURE),
    ip_address: str | None = Query(None, alias="ipAddress", max_length=64),
    module: str | None = Query(None, max_length=50),
    severite: Severite | None = None,
    type_action: str | None = Query(None, alias="typeAction", max_length=50),
    utilisateur: str | None = Query(None, max_length=254),
) -> Page[AuditLogResponse]:
    return await AuditService(session, auth).rechercher(
        params, date_debut=date_debut, date_fin=date_fin, ip_address=ip_address, module=module,
        severite=severite, type_action=type_action, utilisateur=utilisateur)


@router.get("/statistiques", response_model=AuditStatistiques, summary="Statistiques du journal d'audit",
            description="Total, 24 dernières heures, 7 derniers jours, répartition par module, sévérité et type "
                        "d'action, première et dernière entrée; calculés par agrégats sur colonnes indexées "
                        "(aucune ligne chargée). " + _SCOPE)
async def audit_statistics(session: SessionDep,
                           auth: AuthContext = authorize(RS_AUDIT_LECTURE)) -> AuditStatistiques:
    return await AuditService(session, auth).statistiques()
