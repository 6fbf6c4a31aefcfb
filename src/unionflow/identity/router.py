"""Admin - Utilisateurs (spec §4.2, all RS-SA): accounts and realm roles of the configured identity provider."""

from __future__ import annotations

from fastapi import Body, Depends, Query, Request

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import REALM_ROLES_SCHEMA, RS_SA
from unionflow.core.routing import area_router
from unionflow.identity import operations
from unionflow.identity.schemas import CreateUserRequest, RealmRoleResponse, UpdateUserRequest, UserResponse
from unionflow.identity.service import AdminUserService

router = area_router("/api/admin/users", "Admin - Utilisateurs")

_PROVIDER = ("Les comptes sont ceux du fournisseur d'identité configuré: le fournisseur intégré, ou Keycloak "
             "(API d'administration) quand `keycloak_admin_url` est défini; 503/502 si Keycloak est "
             "injoignable ou en erreur.")
_UPSTREAM = (502, 503)


def _service(request: Request, session: SessionDep, auth: AuthContext) -> AdminUserService:
    return operations.comptes(request, session, auth)


@router.get("", response_model=Page[UserResponse], responses=problems(*_UPSTREAM),
            summary="Lister et rechercher les utilisateurs",
            description="Recherche `search` sur identifiant, e-mail, prénom et nom. Les mots de passe et leurs "
                        "empreintes ne sont jamais renvoyés; `realmRoles` est null dans la liste. " + _PROVIDER)
async def list_users(request: Request, session: SessionDep, auth: AuthContext = authorize(RS_SA),
                     params: PageParams = Depends(paging(20)),
                     search: str | None = Query(None, max_length=100)) -> Page[UserResponse]:
    return await _service(request, session, auth).lister(search, params)


@router.post("", response_model=UserResponse, responses=problems(409, *_UPSTREAM),
             summary="Créer un utilisateur",
             description="UserDTO: `username`, `email`, `firstName`, `lastName`, `enabled`, `password` "
                         "(facultatif, 10 caractères minimum), `realmRoles` (rôles UnionFlow). Réponse 200 avec "
                         "l'utilisateur créé (comme la spécification). Identifiant ou e-mail déjà pris: 409. "
                         + _PROVIDER)
async def create_user(request: Request, data: CreateUserRequest, session: SessionDep,
                      auth: AuthContext = authorize(RS_SA)) -> UserResponse:
    return await _service(request, session, auth).creer(data)


@router.get("/roles", response_model=list[RealmRoleResponse], responses=problems(*_UPSTREAM),
            summary="Rôles de domaine (realm) gérés par UnionFlow",
            description="Les rôles techniques du fournisseur (offline_access, default-roles-…) ne sont pas "
                        "listés: UnionFlow ne gère que ses propres rôles.")
async def realm_roles(request: Request, session: SessionDep,
                      auth: AuthContext = authorize(RS_SA)) -> list[RealmRoleResponse]:
    return await _service(request, session, auth).realm_roles()


@router.get("/{id}", response_model=UserResponse, responses=problems(*_UPSTREAM),
            summary="Consulter un utilisateur (avec ses rôles)")
async def get_user(id: str, request: Request, session: SessionDep,
                   auth: AuthContext = authorize(RS_SA)) -> UserResponse:
    return await _service(request, session, auth).obtenir(id)


@router.put("/{id}", response_model=UserResponse, responses=problems(409, *_UPSTREAM),
            summary="Modifier un utilisateur (mise à jour partielle)",
            description="Seuls les champs envoyés changent (au minimum `enabled`). `username` ne change pas: "
                        "renvoyé, il doit être l'identifiant enregistré (casse indifférente), sinon 400 "
                        "`regle-metier`. "
                        "`password` réinitialise le mot de passe et révoque les sessions. Désactiver un compte "
                        "révoque ses jetons de rafraîchissement; on ne peut pas désactiver son propre compte "
                        "(409).")
async def update_user(id: str, request: Request, data: UpdateUserRequest, session: SessionDep,
                      auth: AuthContext = authorize(RS_SA)) -> UserResponse:
    return await _service(request, session, auth).modifier(id, data)


@router.get("/{id}/roles", response_model=list[str], responses=problems(*_UPSTREAM),
            summary="Rôles UnionFlow d'un utilisateur")
async def user_roles(id: str, request: Request, session: SessionDep,
                     auth: AuthContext = authorize(RS_SA)) -> list[str]:
    return await _service(request, session, auth).user_roles(id)


@router.put("/{id}/roles", response_model=list[str], responses=problems(409, *_UPSTREAM),
            summary="Remplacer les rôles UnionFlow d'un utilisateur",
            description="Corps: tableau de noms de rôles. Remplace les rôles UnionFlow (les rôles techniques du "
                        "fournisseur sont conservés); rôle inconnu: 400. On ne peut pas retirer son propre "
                        "SUPER_ADMIN (409). Chaque changement est journalisé (sévérité WARNING).")
async def set_user_roles(id: str, request: Request, session: SessionDep,
                         roles: list[str] = Body(..., max_length=20, json_schema_extra=REALM_ROLES_SCHEMA),
                         auth: AuthContext = authorize(RS_SA)) -> list[str]:
    return await _service(request, session, auth).definir_roles(id, roles)
