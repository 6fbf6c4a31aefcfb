"""Password change of the connected member (tag Membres)."""

from __future__ import annotations

from fastapi import Request, Response

from unionflow.auth.throttle import AttemptLimiter
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.identity.provider import keycloak_provider, local_provider
from unionflow.identity.schemas import PasswordChange
from unionflow.identity.service import PasswordService, WrongCurrentPassword

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
                        "d'administration et fin des sessions. Mot de passe actuel erroné: 400; trop d'échecs "
                        "dans la fenêtre: 429 avec `Retry-After`.")
async def change_password(request: Request, data: PasswordChange, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED, before_password_change=True),
                          ) -> Response:
    limiter = AttemptLimiter(request, "password")
    key = limiter.key("sub", f"{auth.issuer} {auth.sub}")  # a person is (issuer, subject)
    settings = request.app.state.settings
    service = PasswordService(session, auth, local_provider(session), keycloak_provider(request),
                              settings.issuer if settings.builtin_idp_enabled else None)
    await limiter.attempt(session, [(key, limiter.limit)], [key], lambda: service.changer(data),
                          WrongCurrentPassword)
    return Response(status_code=204)
