"""Callbacks of phone gateways (USSD, inbound SMS, delivery reports): no bearer token, so the gateway proves
itself by a shared secret (header or query parameter, compared in constant time) and, when networks are listed,
by its address; each phone number is then counted against its own limit. One mechanism for every gateway route
(ussd/router.py, sms/router.py)."""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass

from fastapi import Request

from unionflow.auth.throttle import counter_store
from unionflow.core.errors import Forbidden, Unauthenticated


@dataclass(frozen=True)
class Passerelle:
    """A gateway's settings: what it must send, where it may call from, how often one phone may go through."""

    nom: str
    en_tete: str
    secret: str | None
    reseaux: list[str]
    max_appels: int
    fenetre: int


def _reseau_admis(host: str | None, reseaux: list[str]) -> bool:
    try:
        adresse = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    return any(adresse in ipaddress.ip_network(r, strict=False) for r in reseaux)


def authentifier(request: Request, passerelle: Passerelle) -> None:
    """401 without the configured secret (or when none is configured), 403 from outside the listed networks —
    before anything of the request's body is read."""
    fourni = request.headers.get(passerelle.en_tete) or request.query_params.get("secret")
    attendu = passerelle.secret
    if not attendu or not fourni or not hmac.compare_digest(fourni.encode(), attendu.encode()):
        raise Unauthenticated(f"Passerelle {passerelle.nom} non authentifiée")
    client = request.client.host if request.client else None
    if passerelle.reseaux and not _reseau_admis(client, passerelle.reseaux):
        raise Forbidden(f"Adresse non autorisée pour la passerelle {passerelle.nom}")


async def compter(request: Request, passerelle: Passerelle, telephone: str) -> int | None:
    """Counts one call of ``telephone``; seconds to wait when it is over its limit, else None. Shared by every
    worker (Redis or the login_throttle table), in one round trip of its own (a quarter of the CPU of a USSD answer
    when it was a read then a write: docs/performance.md « USSD et SMS »)."""
    return await counter_store(request).compter(f"{passerelle.nom.lower()}:{telephone}", passerelle.max_appels,
                                                passerelle.fenetre)
