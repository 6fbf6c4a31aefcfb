"""Signing and destination checks of outbound webhooks."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import socket
from urllib.parse import urlsplit

SIGNATURE_HEADER = "UnionFlow-Signature"


def signer(secret: str, horodatage: int, corps: bytes) -> str:
    """``t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>``: the timestamp is signed with the body so a
    receiver can refuse replays older than its tolerance (as Stripe's scheme)."""
    mac = hmac.new(secret.encode(), f"{horodatage}.".encode() + corps, hashlib.sha256).hexdigest()
    return f"t={horodatage},v1={mac}"


def motif_url_refusee(url: str, autoriser_privees: bool) -> str | None:
    """Why a subscription URL is refused at creation, or None. Names are resolved at delivery time."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "L'URL doit commencer par http:// ou https://"
    if not parts.hostname:
        return "L'URL doit contenir un nom d'hôte"
    if parts.username or parts.password:
        return "L'URL ne doit pas contenir d'identifiants: la signature authentifie UnionFlow"
    if autoriser_privees:
        return None
    if parts.hostname.lower() in ("localhost", "localhost.localdomain") or parts.hostname.endswith(".localhost"):
        return "Adresse locale refusée"
    try:
        adresse = ipaddress.ip_address(parts.hostname.strip("[]"))
    except ValueError:
        return None
    return None if adresse.is_global else "Adresse IP privée, locale ou réservée refusée"


async def motif_destination_refusee(url: str, autoriser_privees: bool) -> str | None:
    """At delivery: every address the name resolves to must be public (a name may point to 127.0.0.1 or
    169.254.169.254, or be changed to after the subscription was checked)."""
    if autoriser_privees:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"Nom d'hôte introuvable: {host} ({exc})"
    for info in infos:
        adresse = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not adresse.is_global:
            return f"{host} désigne une adresse privée, locale ou réservée ({adresse})"
    return None
