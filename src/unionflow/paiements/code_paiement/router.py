"""Public payment by code: no login (whoever knows a dues' payment code may pay it), on ``PUBLIC_ROUTES``, and
limited per client address like the other public routes (the throttle's counters, auth/throttle.py)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from unionflow.auth.throttle import IP_LIMIT_FACTOR, AttemptLimiter, client_ip
from unionflow.core.code_paiement import normaliser
from unionflow.core.db import SessionDep
from unionflow.core.errors import TooManyRequests, UnionFlowError, schema_error
from unionflow.core.openapi import problems
from unionflow.core.routing import area_router
from unionflow.paiements.code_paiement import page
from unionflow.paiements.code_paiement.schemas import (
    E164,
    CotisationParCodeResponse,
    CreatePaiementParCodeRequest,
    PaiementParCodeResponse,
)
from unionflow.paiements.code_paiement.service import CodePaiementService
from unionflow.paiements.recus.page import veut_html

router = area_router(page.PREFIX, "Paiements")

_HTML = {"content": {"text/html": {"schema": {"type": "string"}}}}


def _ou_page(reponses: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """A form of the public page refused: the page again, in HTML, with the reason (a JSON call gets the problem)."""
    return {code: {**r, "content": _HTML["content"]} for code, r in reponses.items()}


_HEADERS = {"Content-Security-Policy": page.CSP, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
_LIMITE = ("Public, sans compte. Limité par adresse IP: au-delà de 10 × `UNIONFLOW_LOGIN_MAX_ATTEMPTS` appels par "
           "fenêtre `UNIONFLOW_LOGIN_WINDOW_SECONDS` (les trois routes du paiement par code comptées ensemble), "
           "429 avec `Retry-After`.")
_SCHEMA = {"type": "object", "additionalProperties": False, "title": "CreatePaiementParCodeRequest",
           "properties": {"telephonePayeur": {
               "type": "string", "pattern": E164, "description": "Numéro E.164 de la personne qui paie: un SMS lui "
               "confirme l'arrivée de l'argent (facultatif)"}}}
_BODY = {"requestBody": {"required": False, "content": {"application/json": {"schema": _SCHEMA},
                                                        "application/x-www-form-urlencoded": {"schema": _SCHEMA}}}}


async def limite_publique(request: Request) -> None:
    """Every call counts (not only failures: reading a code is the enumeration to slow down), in the counters' own
    transaction, before the request's begins (a dependency resolved ahead of the session)."""
    limiter = AttemptLimiter(request, "code-paiement")
    cle = limiter.key("ip", client_ip(request))
    limite = limiter.limit * IP_LIMIT_FACTOR
    attente = await limiter.store.compter(cle, limite, limiter.settings.login_window_seconds)
    if attente is not None:
        raise TooManyRequests(f"Trop de demandes: réessayez dans {attente} secondes",
                              headers={"Retry-After": str(attente)})


def _html(contenu: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(contenu, status_code=status, headers={**_HEADERS, "Vary": "Accept"})


@router.get("", response_class=HTMLResponse, responses={200: _HTML, **problems(429)},
            summary="Page publique: payer une cotisation par son code",
            description="Page HTML (français, lisible sur téléphone) où l'on tape le code de paiement d'une "
                        "cotisation; `?code=` renvoie (303) vers la page de la cotisation. " + _LIMITE)
async def page_code(request: Request, code: str | None = None, _: None = Depends(limite_publique)) -> Response:
    if code:
        return RedirectResponse(f"{page.PREFIX}/{normaliser(code)[:20]}", status_code=303)
    return _html(page.page_saisie())


@router.get("/{code}", response_model=CotisationParCodeResponse,
            responses={**_ou_page(problems(400, 404, 429)), 200: _HTML},
            summary="Cotisation désignée par un code de paiement (public)",
            description="Extension. Initiales du membre, organisation, objet, échéance et reste à payer: rien "
                        "d'autre sur le membre. Code mal formé ou clé de contrôle fausse: 400 `regle-metier` "
                        "(11 chiffres, espaces ou tirets admis, les deux derniers clé ISO 7064 MOD 97-10); "
                        "inconnu: 404. "
                        "Un navigateur (`Accept: text/html`) reçoit la page avec le bouton de paiement Wave. "
                        + _LIMITE)
async def consulter(code: str, request: Request, _: None = Depends(limite_publique), *,
                    session: SessionDep) -> CotisationParCodeResponse | HTMLResponse:
    service = CodePaiementService(session, request.app.state.settings)
    if not veut_html(request.headers.get("accept")):
        return await service.consulter(code)
    try:
        return _html(page.page_cotisation(await service.consulter(code)))
    except UnionFlowError as exc:
        return _html(page.page_saisie(exc.detail, normaliser(code)[:20]), exc.status)


async def _corps(request: Request) -> CreatePaiementParCodeRequest:
    form = "application/x-www-form-urlencoded" in request.headers.get("content-type", "")
    try:
        if form:
            data: Any = {k: v for k, v in (await request.form()).items() if v}
        else:
            raw = await request.body()
            data = CreatePaiementParCodeRequest.model_validate_json(raw) if raw.strip() else {}
        return CreatePaiementParCodeRequest.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc) from exc


@router.post("/{code}/wave", status_code=201, response_model=PaiementParCodeResponse, openapi_extra=_BODY,
             responses={**_ou_page(problems(400, 404, 409, 429, 502, 503)),
                        303: {"description": "Formulaire: vers Wave"}},
             summary="Ouvrir un paiement Wave pour une cotisation désignée par son code (public)",
             description="Extension. Ouvre une session Wave Checkout du reste dû, `client_reference` = le code; "
                         "la session encore ouverte ouverte ici pour ce code est rendue à nouveau (un second clic "
                         "n'en ouvre pas une seconde): pas d'`Idempotency-Key`, la route n'a pas d'appelant à qui "
                         "l'attacher et aucun argent ne bouge avant la confirmation de Wave (webhook signé). "
                         "`telephonePayeur` (E.164, facultatif) reçoit un SMS quand l'argent arrive; le membre "
                         "reçoit son reçu. Cotisation réglée ou annulée: 400; paiement du membre déjà en cours: "
                         "409. Corps JSON (201) ou formulaire de la page (303 vers le lien Wave). " + _LIMITE)
async def payer_wave(code: str, request: Request, _: None = Depends(limite_publique), *,
                     session: SessionDep) -> PaiementParCodeResponse | Response:
    # The limiter writes its count in its own transaction: it runs before the request's (on SQLite the request's
    # write lock, taken first, made the count wait on it until the timeout).
    form = "application/x-www-form-urlencoded" in request.headers.get("content-type", "")
    service = CodePaiementService(session, request.app.state.settings)
    if not form:
        data = await _corps(request)
        return await service.payer_wave(code, data.telephone_payeur)
    try:
        data = await _corps(request)
        ouverte = await service.payer_wave(code, data.telephone_payeur)
    except UnionFlowError as exc:
        await session.rollback()
        return _html(page.page_saisie(exc.detail, normaliser(code)[:20]), exc.status)
    return RedirectResponse(ouverte.wave_launch_url, status_code=303)
