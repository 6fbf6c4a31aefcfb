"""One e-mail syntax for the whole service: API input, the CLI and the bootstrap administrator.

Syntax only (no DNS): RFC 5321/6531 through email-validator, normalised (domain in lower case). The library
refuses IANA special-use domains; ``local`` and ``test`` are accepted because local accounts of the built-in
identity provider use them (bootstrap ``admin@unionflow.local``, CLI ``...@x.test``) and such accounts never
receive mail from the internet. ``invalid``, ``localhost``, ``onion`` and ``arpa`` stay refused, and a domain
needs a dot.
"""

from __future__ import annotations

from typing import Annotated

import email_validator
from pydantic import AfterValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

ACCEPTED_SPECIAL_USE = ("local", "test")

# The library's documented way to accept a special-use domain (README, "Testing"): remove it from this list.
# Done once here, so every validation in the process (ours) applies the same rule.
for _name in ACCEPTED_SPECIAL_USE:
    if _name in email_validator.SPECIAL_USE_DOMAIN_NAMES:
        email_validator.SPECIAL_USE_DOMAIN_NAMES.remove(_name)

MAX_LENGTH = 254


def _raison(value: str, error: email_validator.EmailNotValidError) -> str:
    text = str(error)
    if "@" not in value:
        return "il manque le @"
    if "special-use or reserved" in text:
        return "domaine réservé"
    if "before the @-sign" in text:
        return "partie avant le @ invalide"
    if "too long" in text:
        return "adresse trop longue"
    return "domaine invalide"


def normaliser_email(value: str) -> str:
    """The normalised address, or ValueError with a French reason."""
    value = value.strip()
    try:
        result = email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError as error:
        raise ValueError(f"adresse e-mail invalide ({_raison(value, error)})") from None
    if len(result.normalized) > MAX_LENGTH:
        raise ValueError("adresse e-mail invalide (adresse trop longue)")
    return result.normalized


def _valider(value: str) -> str:
    try:
        return normaliser_email(value)
    except ValueError as error:
        raise PydanticCustomError("email", str(error)) from None


Email = Annotated[str, AfterValidator(_valider),
                  WithJsonSchema({"type": "string", "format": "email", "maxLength": MAX_LENGTH})]
