"""The role catalogue. What a role may call is read from the mounted routes' role sets at request time, and what
it may do to an organisation's records from the permission table (core/permissions.py), so the catalogue cannot
drift from the authorisation actually enforced."""

from __future__ import annotations

from starlette.routing import BaseRoute

from unionflow.core.errors import NotFound
from unionflow.core.permissions import UNION_WIDE, role_permissions
from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_ROLES, Role
from unionflow.core.routing import api_routes
from unionflow.roles.schemas import OperationAutorisee, PermissionAccordee, Portee, RoleResponse

R = Role
LIBELLES: dict[Role, tuple[str, str]] = {
    R.SUPER_ADMIN: ("Super administrateur", "Administre la plateforme: comptes, associations aux organisations, "
                                            "configuration, sauvegardes."),
    R.ADMIN: ("Administrateur de l'union", "Gère toutes les organisations, les membres et les finances de l'union."),
    R.ADMIN_ORGANISATION: ("Administrateur d'organisation", "Administre son organisation: registre des membres, "
                                                            "rôles, adhésions, journal d'audit de l'organisation."),
    R.MEMBRE: ("Membre", "Membre d'une organisation: sa fiche, ses cotisations, ses paiements, les événements."),
    R.USER: ("Utilisateur", "Compte authentifié sans appartenance: consulte sa fiche et l'annuaire, peut adhérer."),
    R.MODERATEUR: ("Modérateur", "Modère les contenus (avis, messages) et suit la supervision."),
    R.TRESORIER: ("Trésorier", "Tient les finances de son organisation: cotisations, encaissements, versements; "
                               "lit le journal d'audit de son argent, exporte ses membres."),
    R.PRESIDENT: ("Président", "Dirige son organisation: consulte le registre et les finances, décide des aides, "
                               "approuve les gros versements et les réouvertures de période."),
    R.SECRETAIRE: ("Secrétaire", "Tient le registre des membres et l'organisation des événements."),
    R.ORGANISATEUR_EVENEMENT: ("Organisateur d'événement", "Crée et gère les événements de son organisation."),
    R.COMMISSAIRE_AUX_COMPTES: ("Commissaire aux comptes", "Extension: contrôle les comptes de son organisation en "
                                                           "lecture seule (livres, journal d'audit, reçus, états, "
                                                           "exports); ne modifie rien."),
    R.DELEGUE_PROTECTION_DONNEES: ("Délégué à la protection des données",
                                   "Extension: lit le journal des accès aux fiches des membres de son organisation "
                                   "et leurs consentements, le registre des traitements; ne voit pas le reste."),
}


def _operations(routes: list[BaseRoute], role: Role) -> list[OperationAutorisee]:
    found = []
    for info in api_routes(routes):
        authorizer, route, path = info.authorizer, info.route, info.path
        if authorizer is None or role not in authorizer.role_set.roles:
            continue
        for method in sorted(info.methods):
            found.append(OperationAutorisee(methode=method, chemin=path, resume=route.summary,
                                            domaine=str(route.tags[0]) if route.tags else None,
                                            role_set=authorizer.role_set.name))
    return sorted(found, key=lambda op: (op.chemin, op.methode))


def describe(role: Role, routes: list[BaseRoute]) -> RoleResponse:
    libelle, description = LIBELLES.get(role, (role.value, role.value))
    in_org = role in ORGANISATION_ROLES
    return RoleResponse(code=role.value, libelle=libelle, description=description,
                        portee=Portee.ORGANISATION if in_org else Portee.REALM,
                        attribuable_en_organisation=in_org, permissions=_permissions(role),
                        operations=_operations(routes, role))


def _permissions(role: Role) -> list[PermissionAccordee]:
    union_wide = role in GLOBAL_ROLES
    return [PermissionAccordee(code=p.value, portee="UNION" if union_wide or role in UNION_WIDE.get(p, ()) else
                               "ORGANISATION") for p in role_permissions()[role]]


def catalogue(routes: list[BaseRoute]) -> list[RoleResponse]:
    return [describe(role, routes) for role in Role]


def one(code: str, routes: list[BaseRoute]) -> RoleResponse:
    if code not in Role.__members__:
        raise NotFound(f"Rôle inconnu: {code}")
    return describe(Role(code), routes)
