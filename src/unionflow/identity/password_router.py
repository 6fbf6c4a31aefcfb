"""Password change of the connected member (tag Membres)."""

from __future__ import annotations

from fastapi import Request, Response

from unionflow.core.auth import AuthContext, SessionDep, authorize
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.identity.provider import keycloak_provider, local_provider
from unionflow.identity.schemas import PasswordChange
from unionflow.identity.service import PasswordService, WrongCurrentPassword
from unionflow.identity.throttle import AttemptLimiter

router = area_router("/api/membres/me", "Membres")


@router.put("/mot-de-passe", status_code=204, responses=problems(429, 502, 503),
            summary="Changer son mot de passe",
            description="Corps `{motDePasseActuel, nouveauMotDePasse}` (10 caractères minimum, différent de "
                        "l'actuel). Compte intégré: vérification de l'actuel, nouvelle empreinte argon2, "
                        "révocation de tous les jetons de rafraîchissement. Compte Keycloak: l'actuel est vérifié "
                        "par un octroi « password » sur Keycloak, puis réinitialisation par l'API "
                        "d'administration et fin des sessions. Mot de passe actuel erroné: 400; trop d'échecs "
                        "dans la fenêtre: 429 avec `Retry-After`.")
async def change_password(request: Request, data: PasswordChange, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> Response:
    limiter = AttemptLimiter(request, "password")
    key = limiter.key("sub", auth.sub)
    settings = request.app.state.settings
    service = PasswordService(session, auth, local_provider(session), keycloak_provider(request),
                              settings.issuer if settings.builtin_idp_enabled else None)
    await limiter.attempt(session, [(key, limiter.limit)], [key], lambda: service.changer(data),
                          WrongCurrentPassword)
    return Response(status_code=204)
