"""Password change of the connected member (tag Membres)."""

from __future__ import annotations

from fastapi import Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.identity import operations
from unionflow.identity.schemas import PasswordChange

router = area_router("/api/membres/me", "Membres")


@router.put("/mot-de-passe", status_code=204, responses=problems(429, 502, 503),
            summary="Changer son mot de passe",
            description="Corps `{motDePasseActuel, nouveauMotDePasse}` (10 caractères minimum, différent de "
                        "l'actuel). Compte intégré: vérification de l'actuel, nouvelle empreinte argon2, "
                        "révocation de tous les jetons de rafraîchissement. Seule opération permise à un compte "
                        "dont le mot de passe a été fixé par un administrateur (compte initial, "
                        "réinitialisation par l'administration): "
                        "toute autre répond 403 `mot-de-passe-a-changer` jusqu'au changement, puis se reconnecter. "
                        "Compte Keycloak: l'actuel est vérifié "
                        "par un octroi « password » sur Keycloak, puis réinitialisation par l'API "
                        "d'administration et fin des sessions. Mot de passe actuel erroné: 400 `regle-metier`; "
                        "trop d'échecs "
                        "dans la fenêtre: 429 avec `Retry-After`.")
async def change_password(request: Request, data: PasswordChange, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED, before_password_change=True),
                          ) -> Response:
    await operations.changer_mot_de_passe(request, session, auth, data)
    return Response(status_code=204)
