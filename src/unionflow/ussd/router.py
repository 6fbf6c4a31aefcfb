"""USSD: the gateway's callback (public, authenticated by the gateway's secret and address) and the member's PIN."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.responses import PlainTextResponse
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.passerelles import Passerelle, authentifier, compter
from unionflow.config import Settings
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.errors import InvalidInput
from unionflow.core.openapi import problems
from unionflow.core.passe_lecture import lire_sinon_ecrire
from unionflow.core.roles import RS_COMPTE_ADHERENT, RS_TRESORERIE
from unionflow.core.routing import area_router
from unionflow.ussd import ecrans
from unionflow.ussd.pin_service import PinUssdService
from unionflow.ussd.schemas import CreatePinUssdRequest, CreateReinitialisationPinUssdRequest, PinUssdResponse
from unionflow.ussd.service import UssdService

router = area_router("/api/ussd", "USSD")

_FORM = {"requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
    "type": "object", "required": ["sessionId", "phoneNumber"],
    "properties": {"sessionId": {"type": "string", "maxLength": 100}, "serviceCode": {"type": "string"},
                   "phoneNumber": {"type": "string", "pattern": r"^\+[1-9][0-9]{6,14}$",
                                   "description": "E.164"},
                   "text": {"type": "string", "maxLength": 500,
                            "description": "Saisies de la session jointes par `*` (vide au premier écran)"}}}}}}}
_TEXTE = {"content": {"text/plain": {"schema": {"type": "string", "maxLength": ecrans.ECRAN_MAX}}}}


@dataclass(frozen=True)
class Appel:
    telephone: str
    texte: str
    session_id: str
    attente: int | None  # seconds before this phone may call again, when over its limit


def passerelle_ussd(settings: Settings) -> Passerelle:
    return Passerelle("USSD", "X-USSD-Secret", settings.ussd_gateway_secret, settings.ussd_allowed_networks,
                      settings.ussd_max_requests, settings.ussd_window_seconds)


async def appel_passerelle(request: Request) -> Appel:
    """Authenticates the gateway before anything is read, then counts the call against the phone's limit — in
    its own short transaction, before the request's own begins (a dependency resolved ahead of the session)."""
    passerelle = passerelle_ussd(request.app.state.settings)
    authentifier(request, passerelle)
    form = await request.form()
    telephone, texte = str(form.get("phoneNumber") or "").strip(), str(form.get("text") or "")
    if not form.get("sessionId") or not telephone.startswith("+") or not telephone[1:].isdigit() or len(texte) > 500:
        raise InvalidInput("sessionId et phoneNumber (E.164) requis, text d'au plus 500 caractères")
    return Appel(telephone, texte, str(form.get("sessionId"))[:100], await compter(request, passerelle, telephone))


@router.post("/callback", response_class=PlainTextResponse, openapi_extra=_FORM,
             responses={200: _TEXTE, 429: _TEXTE, **problems(400, 401, 403)},
             summary="Rappel de la passerelle USSD (public, authentifié par la passerelle)",
             description="Public: la passerelle (Africa's Talking ou agrégateur) n'a pas de jeton. Refusé sans "
                         "le secret partagé `UNIONFLOW_USSD_GATEWAY_SECRET` (en-tête `X-USSD-Secret` ou paramètre "
                         "`secret`): 401; hors des réseaux `UNIONFLOW_USSD_ALLOWED_NETWORKS` quand ils sont "
                         "listés: 403. Formulaire `sessionId`, `serviceCode`, `phoneNumber` (E.164), `text` "
                         "(saisies jointes par `*`); réponse text/plain commençant par `CON ` (suite) ou `END ` "
                         "(fin), au plus 182 caractères GSM-7. Numéro inconnu: `END` poli, aucune donnée. Code "
                         "PIN du membre avant tout chiffre; 3 codes faux bloquent l'accès USSD jusqu'à la "
                         "réinitialisation par la trésorerie. Au-delà de `UNIONFLOW_USSD_MAX_REQUESTS` appels par "
                         "numéro et par fenêtre: 429 avec un écran `END`. Menu: docs/ussd-sms.md.")
async def callback(request: Request, *, appel: Appel = Depends(appel_passerelle)) -> PlainTextResponse:
    if appel.attente is not None:
        return PlainTextResponse(ecrans.TROP_DE_DEMANDES, status_code=429,
                                 headers={"Retry-After": str(appel.attente)})

    async def repondre(session: AsyncSession) -> str:
        return await UssdService(session, request.app.state.settings).repondre(appel.telephone, appel.texte)

    # Most screens only read: read first, and open the guarded write transaction only for an answer that writes
    # (a wrong PIN, a code by SMS, a payment link). core/passe_lecture.py says why and how.
    return PlainTextResponse(await lire_sinon_ecrire(request, repondre))


@router.get("/pin/me", response_model=PinUssdResponse, responses=problems(404),
            summary="État de mon code PIN USSD", description="Défini ou non, codes faux, blocage; jamais le code.")
async def mon_pin(request: Request, session: SessionDep,
                  auth: AuthContext = authorize(RS_COMPTE_ADHERENT)) -> PinUssdResponse:
    return await PinUssdService(session, auth, request.app.state.settings).etat_mien()


@router.put("/pin/me", response_model=PinUssdResponse, responses=problems(404, 409),
            summary="Définir mon code PIN USSD",
            description="4 à 6 chiffres, ni tous identiques ni une suite (400 `regle-metier` sinon; les codes "
                        "refusés sont listés dans le schéma); conservé en empreinte à "
                        "clé (HMAC-SHA256, clé hors base), jamais renvoyé. 409 si l'accès USSD est bloqué après 3 "
                        "codes faux: seule la trésorerie le débloque. Audité (DEFINIR/MODIFIER).")
async def definir_pin(data: CreatePinUssdRequest, request: Request, session: SessionDep,
                      auth: AuthContext = authorize(RS_COMPTE_ADHERENT)) -> PinUssdResponse:
    return await PinUssdService(session, auth, request.app.state.settings).definir(data.pin)


@router.post("/pin/{membreId}/reinitialiser", response_model=PinUssdResponse, responses=problems(403, 404),
             summary="Réinitialiser le code PIN USSD d'un membre (trésorerie)",
             description="Permission `ussd_pin.reinitialiser`: ADMIN, et l'ADMIN_ORGANISATION ou le TRESORIER "
                         "d'une organisation du membre (403 sinon; membre invisible: 404). Débloque l'accès, remet "
                         "les codes faux à zéro et efface le code, ou le remplace par `nouveauPin` tapé par le "
                         "membre au guichet. Audité (REINITIALISER).")
async def reinitialiser_pin(membreId: uuid.UUID, request: Request, session: SessionDep,
                            data: CreateReinitialisationPinUssdRequest | None = None,
                            auth: AuthContext = authorize(RS_TRESORERIE)) -> PinUssdResponse:
    nouveau = data.nouveau_pin if data is not None else None
    return await PinUssdService(session, auth, request.app.state.settings).reinitialiser(membreId, nouveau)


@router.post("/pin/{membreId}/code-sms", response_model=PinUssdResponse, responses=problems(403, 404),
             summary="Envoyer au membre un code SMS pour créer son code PIN USSD (trésorerie)",
             description="Extension. Permission `ussd_pin.reinitialiser` (comme la réinitialisation; 403 sinon, membre "
                         "invisible: 404). Réinitialise l'accès (débloqué, code PIN effacé) puis envoie par SMS, "
                         "au numéro du membre, un code à usage unique (6 chiffres, empreinte à clé, valable "
                         "`UNIONFLOW_USSD_CODE_SMS_TTL_SECONDS`, 3 essais): le membre compose le code USSD, tape ce "
                         "code puis choisit son code PIN. Membre sans téléphone: 400. Audité (REINITIALISER, "
                         "ENVOYER_CODE). Le membre peut aussi demander le code depuis le menu USSD.")
async def envoyer_code_pin(membreId: uuid.UUID, request: Request, session: SessionDep,
                           auth: AuthContext = authorize(RS_TRESORERIE)) -> PinUssdResponse:
    return await PinUssdService(session, auth, request.app.state.settings).envoyer_code(membreId)
