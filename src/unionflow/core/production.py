"""The production start check: with ``UNIONFLOW_ENVIRONMENT=production`` no secret or password may keep an
example or default value (docs/operations.md). Called by the entry points (``unionflow serve``/``worker`` and the
application factory) before anything touches the database."""

from __future__ import annotations

import logging

from sqlalchemy.engine import make_url

from unionflow.config import Settings
from unionflow.core.passwords import check_strength

# Secrets and passwords among the settings, checked before a production start.
SECRET_SETTINGS = ("bootstrap_admin_password", "wave_api_key", "wave_webhook_secret", "metrics_token",
                   "smtp_password", "sms_gateway_token", "keycloak_admin_client_secret", "s3_secret_key",
                   "ussd_pin_cle")
# What an example or default value looks like: the placeholders of deploy/unionflow.env.example and the usual
# suspects. Compared on the value lower-cased, with "-", "_" and spaces removed.
USSD_PIN_CLE_MIN = 32
PLACEHOLDER_MARKERS = ("changeme", "remplacer", "replaceme", "placeholder", "example", "exemple", "xxxxxx")


def is_placeholder(value: str) -> bool:
    folded = "".join(c for c in value.lower() if c not in "-_ ")
    return any(marker in folded for marker in PLACEHOLDER_MARKERS)


def production_refusals(settings: Settings) -> list[str]:
    """Why a production start is refused (empty: it may start). With ``UNIONFLOW_ENVIRONMENT=production``, no
    secret or password may keep an example or default value: the example env file's placeholders are refused,
    so copying it unchanged cannot give a running service whose administrator password is in the README. The
    database must be named: SQLite only when ``UNIONFLOW_DATABASE_URL`` says so."""
    if settings.environment.strip().lower() != "production":
        return []
    refusals = []
    if "database_url" not in settings.model_fields_set:
        # The default is the embedded SQLite file: fine for a trial, never chosen by omission in production.
        refusals.append("UNIONFLOW_DATABASE_URL is not set: production would run on the embedded SQLite file "
                        f"{settings.database_url} (UNIONFLOW_DATABASE_URL absente: la production tournerait sur "
                        "le fichier SQLite embarqué); set UNIONFLOW_DATABASE_URL=postgresql://…, or "
                        "UNIONFLOW_DATABASE_URL=sqlite:///… to choose SQLite explicitly")
    for name in SECRET_SETTINGS:
        value = getattr(settings, name)
        if value and is_placeholder(str(value)):
            refusals.append(f"UNIONFLOW_{name.upper()} holds an example value: set a secret of your own")
    cle = settings.ussd_pin_cle
    if not cle:
        # Without it the PINs would be digested under the development key, which is in the source.
        refusals.append("UNIONFLOW_USSD_PIN_CLE is not set: the USSD PINs need a secret key of your own, kept out "
                        "of the database (UNIONFLOW_USSD_PIN_CLE absente; e.g. `openssl rand -base64 32`)")
    elif len(cle) < USSD_PIN_CLE_MIN and not is_placeholder(cle):
        refusals.append(f"UNIONFLOW_USSD_PIN_CLE is too short: {USSD_PIN_CLE_MIN} characters at least")
    password = settings.bootstrap_admin_password
    if password and not is_placeholder(password) and (why := check_strength(password)):
        refusals.append(f"UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD is too weak ({why}); or leave it empty to have one "
                        "generated and shown once")
    try:
        database_password = make_url(settings.database_url).password
    except Exception:  # an unreadable URL fails later with its own message
        database_password = None
    if database_password and is_placeholder(str(database_password)):
        refusals.append("the password in UNIONFLOW_DATABASE_URL (POSTGRES_PASSWORD for compose) holds an example "
                        "value: set a password of your own")
    return refusals


class UnsafeProduction(RuntimeError):
    """A production start refused by ``check_production``."""


def check_production(settings: Settings) -> None:
    """Logs every reason at CRITICAL and raises ``UnsafeProduction``: ``unionflow serve``/``worker`` exit 2
    before touching the database (no administrator is created with an example password), and an application
    factory started any other way fails to load."""
    refusals = production_refusals(settings)
    if refusals:
        log = logging.getLogger("unionflow.config")
        for refusal in refusals:
            log.critical("production start refused: %s", refusal)
        raise UnsafeProduction("production start refused: " + "; ".join(refusals))
