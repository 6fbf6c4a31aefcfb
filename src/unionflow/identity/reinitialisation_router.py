""""Mot de passe oublié" (built-in identity provider): two public routes, on ``PUBLIC_ROUTES``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from unionflow.auth.throttle import IP_LIMIT_FACTOR, AttemptLimiter, client_ip
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.routing import GuardedRoute
from unionflow.identity.reinitialisation import JetonInvalide, ReinitialisationService
from unionflow.identity.schemas import (
    CreateDemandeReinitialisationRequest,
    CreateReinitialisationRequest,
    DemandeReinitialisationResponse,
)

router = APIRouter(tags=["Authentification"], route_class=GuardedRoute)

REPONSE = ("Si un compte correspond à cette adresse, un e-mail contenant un lien de réinitialisation vient de "
           "lui être envoyé.")


@router.post("/api/auth/mot-de-passe-oublie", status_code=202, response_model=DemandeReinitialisationResponse,
             responses=problems(429), summary="Mot de passe oublié: demander un lien",
             description="Corps `{email}`. Réponse toujours identique (202), que le compte existe ou non: "
                         "aucun oracle d'existence. Pour un compte actif du fournisseur d'identité intégré, un "
                         "e-mail part par la file des notifications avec un lien à usage unique valable "
                         "`UNIONFLOW_REINITIALISATION_TTL_SECONDS` (1 h); une nouvelle demande annule les liens "
                         "précédents. Limites par fenêtre `UNIONFLOW_LOGIN_WINDOW_SECONDS`: au-delà de "
                         "`LOGIN_MAX_ATTEMPTS` demandes pour une adresse, la réponse reste 202 mais plus aucun "
                         "e-mail ne part (la boîte de la victime n'est pas inondée); au-delà de 10 × ce nombre "
                         "depuis une adresse IP: 429 avec `Retry-After`.")
async def demander(request: Request, data: CreateDemandeReinitialisationRequest,
                   session: SessionDep) -> DemandeReinitialisationResponse:
    limiter = AttemptLimiter(request, "reset-request")
    by_ip = limiter.key("ip", client_ip(request))
    await limiter.check([(by_ip, limiter.limit * IP_LIMIT_FACTOR)])
    by_email = limiter.key("email", data.email)
    over = await limiter.store.retry_after(by_email, limiter.limit)
    # Every request counts (not only failures), in the counters' own transactions: on SQLite they need the write
    # lock, which the request's transaction already holds (write intent, maintenance check), so end it first —
    # nothing has been written in it yet; the service's writes open the next one.
    await session.rollback()
    for key in (by_ip, by_email):
        await limiter.store.failure(key, limiter.settings.login_window_seconds)
    if over is None:
        await ReinitialisationService(session, request.app.state.settings).demander(data.email)
    return DemandeReinitialisationResponse(message=REPONSE)


@router.post("/api/auth/reinitialiser-mot-de-passe", status_code=204, responses=problems(429),
             summary="Mot de passe oublié: choisir un nouveau mot de passe",
             description="Corps `{jeton, nouveauMotDePasse}` (jeton reçu par e-mail). Le jeton est à usage "
                         "unique et expire; le nouveau mot de passe suit les règles habituelles (10 caractères "
                         "minimum). Succès: 204, toutes les sessions (jetons de rafraîchissement) du compte sont "
                         "révoquées. Jeton inconnu, expiré ou déjà utilisé: 400 `invalid-reset-token`; trop d'échecs "
                         "depuis une "
                         "adresse IP: 429.")
async def reinitialiser(request: Request, data: CreateReinitialisationRequest, session: SessionDep) -> Response:
    limiter = AttemptLimiter(request, "reset")
    by_ip = limiter.key("ip", client_ip(request))
    service = ReinitialisationService(session, request.app.state.settings)
    await limiter.attempt(session, [(by_ip, limiter.limit * IP_LIMIT_FACTOR)], [],
                          lambda: service.reinitialiser(data.jeton, data.nouveau_mot_de_passe), JetonInvalide)
    return Response(status_code=204)
