"""Two-way SMS: the gateway's inbound messages and delivery reports (public, authenticated like the USSD callback:
shared secret and address allow-list, auth/passerelles.py). Africa's Talking posts forms; Orange posts JSON."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Request

from unionflow.auth.passerelles import Passerelle, authentifier, compter
from unionflow.config import Settings
from unionflow.core.db import SessionDep
from unionflow.core.errors import InvalidInput, TooManyRequests
from unionflow.core.openapi import problems
from unionflow.core.routing import area_router
from unionflow.sms.schemas import AccusesSmsResponse, SmsEntrantResponse
from unionflow.sms.service import Accuse, MessageEntrant, SmsService

router = area_router("/api/sms", "USSD")

_E164 = {"type": "string", "pattern": r"^\+[1-9][0-9]{6,14}$", "description": "E.164"}
_CORPS_ENTRANT = {"requestBody": {"required": True, "content": {
    "application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["from", "text", "id"], "description": "Africa's Talking",
        "properties": {"from": _E164, "to": {"type": "string"}, "text": {"type": "string", "maxLength": 1000},
                       "date": {"type": "string"}, "id": {"type": "string", "maxLength": 100},
                       "linkId": {"type": "string",
                                  "description": "code court premium (à la demande): renvoyé avec la réponse"}}}},
    "application/json": {"schema": {
        "type": "object", "description": "Orange (inboundSMSMessageNotification)",
        "properties": {"inboundSMSMessageNotification": {"type": "object", "properties": {
            "inboundSMSMessage": {"type": "object", "properties": {
                "senderAddress": {"type": "string", "description": "tel:+…"},
                "destinationAddress": {"type": "string"}, "message": {"type": "string"},
                "messageId": {"type": "string"}}}}}}}}}}}
_CORPS_ACCUSES = {"requestBody": {"required": True, "content": {
    "application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["id", "status"], "description": "Africa's Talking",
        "properties": {"id": {"type": "string"}, "status": {"type": "string"}, "phoneNumber": {"type": "string"},
                       "networkCode": {"type": "string"}, "failureReason": {"type": "string"},
                       "retryCount": {"type": "string"}}}},
    "application/json": {"schema": {
        "type": "object", "description": "Orange (deliveryInfoNotification)",
        "properties": {"deliveryInfoNotification": {"type": "object", "properties": {
            "callbackData": {"type": "string", "description": "identifiant de la requête d'envoi"},
            "deliveryInfo": {"type": "object", "properties": {
                "address": {"type": "string"}, "deliveryStatus": {"type": "string"}}}}}}}}}}}


def passerelle_sms(settings: Settings) -> Passerelle:
    return Passerelle("SMS", "X-SMS-Secret", settings.sms_callback_secret, settings.sms_allowed_networks,
                      settings.sms_max_requests, settings.sms_window_seconds)


def _texte(valeur: Any, longueur: int) -> str:
    return valeur.strip()[:longueur] if isinstance(valeur, str) else ""


async def _corps(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            body = await request.json()
        except ValueError as exc:
            raise InvalidInput("Corps JSON illisible") from exc
        return body if isinstance(body, dict) else {}
    return dict(await request.form())


def _telephone(valeur: str) -> str:
    numero = valeur.removeprefix("tel:").strip()
    if not numero.startswith("+") or not numero[1:].isdigit() or not 8 <= len(numero) <= 16:
        raise InvalidInput("Numéro de l'expéditeur attendu en E.164 (+221…)")
    return numero


async def message_entrant(request: Request) -> MessageEntrant:
    """The gateway first (401/403 before anything is read), then the message, then the sender's limit."""
    passerelle = passerelle_sms(request.app.state.settings)
    authentifier(request, passerelle)
    corps = await _corps(request)
    orange = corps.get("inboundSMSMessageNotification")
    if isinstance(orange, dict):
        sms = orange.get("inboundSMSMessage") or {}
        champs = ("orange", sms.get("messageId"), sms.get("senderAddress"), sms.get("destinationAddress"),
                  sms.get("message"), None)
    else:
        champs = ("africastalking", corps.get("id"), corps.get("from"), corps.get("to"), corps.get("text"),
                  corps.get("linkId"))
    nom, ident, expediteur, destinataire, texte, lien = champs
    if not _texte(ident, 100) or not isinstance(texte, str) or len(texte) > 1000:
        raise InvalidInput("Identifiant du message et texte (au plus 1000 caractères) requis")
    message = MessageEntrant(str(nom), _texte(ident, 100), _telephone(_texte(expediteur, 30)),
                             _texte(destinataire, 30) or None, texte, _texte(lien, 100) or None)
    attente = await compter(request, passerelle, message.expediteur)
    if attente is not None:
        raise TooManyRequests("Trop de messages depuis ce numéro", headers={"Retry-After": str(attente)})
    return message


@router.post("/entrant", response_model=SmsEntrantResponse, openapi_extra=_CORPS_ENTRANT,
             responses=problems(400, 401, 403, 429),
             summary="SMS reçu d'un membre (passerelle; public, authentifié par la passerelle)",
             description="Public: la passerelle (Africa's Talking: formulaire `from`, `to`, `text`, `date`, `id`, "
                         "`linkId`; Orange: JSON `inboundSMSMessageNotification`) n'a pas de jeton. Refusé sans le "
                         "secret `UNIONFLOW_SMS_CALLBACK_SECRET` (en-tête `X-SMS-Secret` ou paramètre `secret`): "
                         "401; hors des réseaux `UNIONFLOW_SMS_ALLOWED_NETWORKS` quand ils sont listés: 403. "
                         "Mots-clés (casse et accents ignorés): SOLDE (ce que le membre doit, son avoir; seulement "
                         "si le numéro est celui d'un seul membre, sans code PIN: la réponse ne va qu'au numéro "
                         "qui demande), RECU <numéro> [<clé>] (même réponse que `/api/recus/verifier`; sans clé, "
                         "seulement un reçu du membre du numéro), AIDE, STOP (plus de rappels par SMS), START "
                         "(les reprendre). Réponse par SMS d'un segment (160 caractères GSM-7) via la file "
                         "d'envoi; un message reçu avec un `linkId` (code court premium) est répondu avec ce "
                         "`linkId` et `bulkSMSMode=0`. Numéro inconnu: réponse polie, aucune donnée. Un message "
                         "déjà reçu (même identifiant) n'est pas traité deux fois. Au-delà de "
                         "`UNIONFLOW_SMS_MAX_REQUESTS` messages par numéro et par fenêtre: 429, sans réponse SMS. "
                         "docs/ussd-sms.md.")
async def entrant(request: Request, *, message: MessageEntrant = Depends(message_entrant),
                  session: SessionDep) -> SmsEntrantResponse:  # the gateway's check runs before the transaction
    traitement = await SmsService(session, request.app.state.settings).recevoir(message)
    return SmsEntrantResponse(id=traitement.entrant.id, mot_cle=traitement.entrant.mot_cle,
                              reponses=traitement.reponses, doublon=traitement.doublon)


async def accuses_passerelle(request: Request) -> list[Accuse]:
    authentifier(request, passerelle_sms(request.app.state.settings))
    corps = await _corps(request)
    orange = corps.get("deliveryInfoNotification")
    if isinstance(orange, dict):
        info = orange.get("deliveryInfo") or {}
        accuse = Accuse(_texte(orange.get("callbackData"), 100), _texte(info.get("deliveryStatus"), 40), None)
    else:
        accuse = Accuse(_texte(corps.get("id"), 100), _texte(corps.get("status"), 40),
                        _texte(corps.get("failureReason"), 200) or None)
    if not accuse.reference or not accuse.statut:
        raise InvalidInput("Identifiant du message et statut requis")
    return [accuse]


@router.post("/accuses", response_model=AccusesSmsResponse, openapi_extra=_CORPS_ACCUSES,
             responses=problems(400, 401, 403),
             summary="Accusé de réception d'un SMS envoyé (passerelle; public, authentifié par la passerelle)",
             description="Public, authentifié comme `/api/sms/entrant`. Africa's Talking: formulaire `id`, "
                         "`status`, `phoneNumber`, `networkCode`, `failureReason`; Orange: JSON "
                         "`deliveryInfoNotification` (`callbackData` = identifiant de l'envoi, `deliveryInfo."
                         "deliveryStatus`). Le statut est enregistré sur le message (`accuseStatut`, `accuseLe` "
                         "de `GET /api/notifications`). Identifiant inconnu: 200, rien d'enregistré.")
async def accuses(request: Request, session: SessionDep,
                  recus: list[Accuse] = Depends(accuses_passerelle)) -> AccusesSmsResponse:
    return AccusesSmsResponse(enregistres=await SmsService(session, request.app.state.settings).accuser(recus))
