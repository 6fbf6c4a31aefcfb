"""Settings, all read from environment variables prefixed ``UNIONFLOW_``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    # The process environment only, no file: the `.env` of the README's production step is docker compose's
    # (compose.yaml passes it to the containers); read from the working directory it would turn `make run` and the
    # test suite into that production (docs/decisions.md, « Réglages: l'environnement seul »).
    model_config = SettingsConfigDict(env_prefix="UNIONFLOW_", extra="ignore")

    environment: str = "development"
    # Plain sqlite:///… or postgresql://… URLs; the async driver is chosen in core.db.
    database_url: str = "sqlite:///./var/unionflow.db"
    database_pool_size: int = 10
    database_echo: bool = False
    # A database that is down or frozen answers 503 within these bounds instead of hanging (docs/operations.md).
    database_connect_timeout_seconds: float = 5.0
    database_pool_timeout_seconds: float = 5.0
    database_statement_timeout_seconds: float = 10.0
    # Retry-After of a 503 answered because the database is unavailable.
    database_retry_after_seconds: int = 5
    # A PostgreSQL streaming replica the heavy reads (statements, exports, consolidation, dashboards) go to when
    # it is close enough and has the reader's own writes (core/replica.py; docs/operations.md « Réplica »).
    database_replica_url: str | None = Field(None, description=(
        "URL `postgresql://…` of a streaming replica (hot standby) of the database; empty: no replica, every "
        "read on the primary. Ignored with SQLite (said at start-up)"))
    database_replica_max_lag_seconds: float = Field(5.0, description=(
        "the replica serves a read only when it is at most this many seconds behind the primary; beyond, the "
        "read goes to the primary (metric `unionflow_replica_fallback_total{raison=\"retard\"}`)"))
    data_dir: Path = Path("./var")

    public_base_url: str = "http://127.0.0.1:8000"
    cors_origins: list[str] = Field(default_factory=list)

    # Built-in identity provider (embedded default).
    builtin_idp_enabled: bool = True
    builtin_issuer: str | None = None  # defaults to public_base_url
    token_audience: str = "unionflow-api"
    access_token_ttl_seconds: int = 900
    refresh_token_ttl_seconds: int = 30 * 24 * 3600
    argon2_time_cost: int = 3
    argon2_memory_cost: int = 65536

    # External OIDC provider (e.g. Keycloak). Tokens whose `iss` equals this value are verified
    # against its JWKS; the built-in issuer stays usable unless disabled.
    oidc_issuer: str | None = None
    oidc_jwks_url: str | None = None
    oidc_audience: str | None = None
    # The console's sign-in at that provider (authorization code + PKCE), offered when a client id is set.
    oidc_client_id: str | None = Field(None, description=(
        "client id of the console at the external OIDC provider; with `UNIONFLOW_OIDC_ISSUER` set, the sign-in "
        "page offers « Se connecter avec … » (authorization code + PKCE S256, redirect URI "
        "`<public URL>/console/connexion/oidc/retour`)"))
    oidc_client_secret: str | None = Field(None, description=(
        "secret of that client when the provider registers it as confidential (sent as `client_secret_post`); "
        "empty for a public client"))
    oidc_nom: str | None = Field(None, description=(
        "name of the external provider on the console's sign-in button (default: the issuer's host name)"))
    jwks_cache_seconds: int = 3600
    # Resolved principals (memberships, roles, API clients) are reused this long per worker (0: never cached).
    principal_cache_seconds: float = 5.0
    jwks_refetch_cooldown_seconds: int = 30
    # One JWKS fetch gives up after this long (connect and read); the cached keys keep serving meanwhile.
    jwks_fetch_timeout_seconds: float = 5.0

    # Keycloak Admin REST API, used for user administration when set.
    keycloak_admin_url: str | None = None
    keycloak_realm: str | None = None
    keycloak_admin_client_id: str | None = None
    keycloak_admin_client_secret: str | None = None

    bootstrap_admin_email: str = "admin@unionflow.local"
    bootstrap_admin_password: str | None = None

    # Shared state across workers (rate limits). Without Redis the database holds the counters.
    redis_url: str | None = None
    login_max_attempts: int = 5
    login_window_seconds: int = 300

    max_page_size: int = 200
    # Statistics endpoints reuse a result computed less than this many seconds ago (0: always recompute).
    statistics_cache_seconds: int = 30
    # A write forgets cached statistics only once they are this old: a stream of payments cannot make every
    # dashboard recompute over the whole table after each one (0: every write forgets them at once).
    statistics_invalidation_min_age_seconds: int = 10
    # Per-worker cache of the reference data payments read (accounts, journals, thresholds, configuration,
    # webhook subscriptions); invalidated on change, this is only the upper bound (0: no cache).
    reference_cache_seconds: float = 30
    # Above this many matching rows a list total is estimated (PostgreSQL) and flagged as such.
    exact_count_cap: int = 10_000

    # Wave mobile money.
    wave_api_base_url: str = "https://api.wave.com"
    wave_api_key: str | None = None
    wave_webhook_secret: str | None = None
    wave_timeout_seconds: float = 10.0
    wave_success_url: str = "https://unionflow.local/paiement/succes"
    wave_error_url: str = "https://unionflow.local/paiement/erreur"
    # Where Wave's payment pages live (the console's CSP lets the "Payer par Wave" form be redirected there);
    # ``unionflow demo`` points it at the Wave simulator.
    wave_launch_origin: str = "https://pay.wave.com"

    # Request bodies other than uploads (JSON, forms): larger ones are answered 413 before being read whole.
    max_json_body_bytes: int = 1024 * 1024

    # Documents.
    upload_max_bytes: int = 10 * 1024 * 1024
    storage_backend: str = "local"
    storage_local_dir: Path | None = None
    s3_endpoint_url: str | None = None
    s3_bucket: str | None = None
    s3_access_key: str | None = None
    s3_secret_key: str | None = None
    s3_region: str = "us-east-1"

    default_currency: str = "XOF"
    default_country: str = "SN"

    # Notifications delivery (docs/notifications.md). No SMTP host: e-mails stay EN_ATTENTE, failing attempts.
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_from: str = "UnionFlow <no-reply@unionflow.local>"
    smtp_starttls: bool = True
    smtp_timeout_seconds: float = 15.0
    # Generic SMS gateway: JSON POST {"to", "message", "reference"}, bearer token if set; any 2xx = accepted.
    sms_gateway_url: str | None = None
    sms_gateway_token: str | None = None
    sms_gateway_sender: str | None = None
    # Which SMS gateway sends (docs/ussd-sms.md): "generique" (the JSON gateway above), "africastalking" or
    # "orange"; and the gateway's rate limit, honoured by the outbox worker (at most this many SMS a second).
    sms_passerelle: Literal["generique", "africastalking", "orange"] = "generique"
    sms_messages_par_seconde: int = 10
    sms_africastalking_url: str = "https://api.africastalking.com/version1/messaging"
    sms_africastalking_username: str | None = None
    sms_africastalking_api_key: str | None = None
    sms_orange_url: str = "https://api.orange.com"
    sms_orange_client_id: str | None = None
    sms_orange_client_secret: str | None = None
    # The Orange sender number in E.164 (tel:+… in the request), and the optional registered sender name.
    sms_orange_expediteur: str | None = None
    sms_orange_nom_expediteur: str | None = None
    # Inbound SMS and delivery reports (POST /api/sms/entrant, /api/sms/accuses): same mechanism as the USSD
    # callback, refused unless the secret is set and sent (header X-SMS-Secret or query `secret`).
    sms_callback_secret: str | None = None
    sms_allowed_networks: list[str] = Field(default_factory=list)
    sms_max_requests: int = 10
    sms_window_seconds: int = 60
    # The key of the USSD PIN's and SMS codes' keyed digests (HMAC-SHA256), held outside the database: a dump of
    # the table is useless without it. Production refuses to start without one (core/production.py).
    ussd_pin_cle: str | None = Field(None, description=(
        "secret key (32 characters at least, e.g. `openssl rand -base64 32`) of the USSD PINs' and SMS codes' "
        "keyed digests (HMAC-SHA256), kept out of the database; production refuses to start without one "
        "or with a shorter one. Empty outside production: a fixed development key (kid `dev`), which production "
        "never accepts"))
    ussd_pin_cle_id: str = Field("1", pattern=r"^[A-Za-z0-9]{1,16}$", description=(
        "identifier (kid) of `UNIONFLOW_USSD_PIN_CLE`, written in every digest (`hmac1$<kid>$…`); change it "
        "with the key, the former one going to `UNIONFLOW_USSD_PIN_CLES_ANCIENNES`"))
    ussd_pin_cles_anciennes: dict[str, str] = Field(default_factory=dict, description=(
        "former keys by kid (JSON object), kept after a rotation so that digests made with them still verify; "
        "each is re-stored under the current key at the member's next right PIN"))
    # One-time SMS code to set a USSD PIN: lifetime, wrong tries before it is void.
    ussd_code_sms_ttl_seconds: int = 900
    notification_max_tentatives: int = 5
    notification_backoff_seconds: int = 60
    notification_lot: int = 100
    notification_bail_seconds: int = 300

    # Outbound webhooks (docs/integrations.md). Private, loopback and link-local destinations are refused
    # unless allowed here (SSRF); tests and single-host deployments with a local receiver set it.
    webhook_autoriser_adresses_privees: bool = False
    webhook_timeout_seconds: float = 10.0
    webhook_max_tentatives: int = 8
    webhook_backoff_seconds: int = 30
    webhook_backoff_max_seconds: int = 6 * 3600
    # Consecutive failed attempts (all deliveries of the subscription) after which it is disabled.
    webhook_echecs_avant_desactivation: int = 15
    webhook_lot: int = 50
    webhook_bail_seconds: int = 120
    # Scheduler (docs/operations.md): `unionflow worker`, or in-process when this is on (`unionflow serve` turns
    # it on for SQLite). Each job runs every N seconds (0 disables it), slots aligned on UTC midnight + offset.
    planificateur_integre: bool = False
    planificateur_tick_seconds: float = 15.0
    planificateur_bail_seconds: int = 3600
    planificateur_retention_jours: int = 90
    export_retention_jours: int = 7
    job_marquer_retards_secondes: int = 86400
    job_marquer_retards_decalage_secondes: int = 900
    job_envoyer_notifications_secondes: int = 60
    job_livrer_webhooks_secondes: int = 30
    job_surveiller_secondes: int = 300
    job_sauvegarder_secondes: int = 900
    job_nettoyer_secondes: int = 86400
    job_nettoyer_decalage_secondes: int = 3 * 3600
    # Retention of personal data (Loi 2008-12, docs/conformite.md D9; chosen periods, not from a text): a member
    # struck off this many years ago, owing nothing, is pseudonymised; notification and inbound SMS texts are
    # blanked after this many days. Books are never touched.
    donnees_radies_conservation_ans: int = 5
    donnees_messages_conservation_jours: int = 365
    # The access log (who read a member's file) is itself personal data about the readers and the member: kept
    # this many days, then deleted (a choice, docs/conformite.md « Durées de conservation »).
    donnees_acces_conservation_jours: int = 365
    # Exchanges once settled (tickets closed, opinions on the service, suggestions rejected or carried out, comments
    # on ended events): their texts and the author's name are blanked after this many days (a choice, D9). Two
    # years: a member may still ask about last year's answer; the figures (counts, marks, dates) stay.
    donnees_echanges_conservation_jours: int = 730
    job_retention_donnees_secondes: int = 86400
    job_retention_donnees_decalage_secondes: int = 4 * 3600
    # Folds the deltas the dues triggers append into the statistics summary; reads are exact either way, the
    # interval only bounds how many deltas a statistics read adds up (docs/architecture.md).
    job_compacter_synthese_secondes: int = 60
    # The same for the ledger's monthly balances (comptabilite/soldes_sql.py): the interval bounds how many deltas
    # a statement adds up.
    job_compacter_soldes_secondes: int = 60

    # Above this many active members, dues generation answers 202 and runs as a background task.
    tache_seuil_cotisations: int = 2000
    # Above this database size, a manual backup (POST /api/backups) answers 202 and runs as a background task.
    tache_seuil_sauvegarde_octets: int = 256 * 1024 * 1024
    # Above this many rows, an export (GET /api/export/...) answers 202 and the file is written by a background task.
    tache_seuil_export_lignes: int = 50000
    # Above this many lines, a real member import answers 202 and runs as a background task (file under data_dir).
    tache_seuil_import_lignes: int = 5000

    # "Mot de passe oublié" (docs/identity.md): token lifetime, and the web page the e-mailed link opens
    # (default {public_base_url}/reinitialiser-mot-de-passe); the token is appended as ?jeton=….
    reinitialisation_ttl_seconds: int = 3600
    reinitialisation_url: str | None = None
    # Logs (docs/operations.md). auto: plain text when stderr is a terminal (make run), JSON lines otherwise.
    log_format: str = "auto"
    log_level: str = "INFO"
    access_log: bool = True  # one line per request (logger unionflow.requests)
    # System logs stored for GET /api/logs: records at or above this level, kept this many days (0: not stored).
    log_store_level: str = "INFO"
    log_retention_days: int = 14
    log_flush_seconds: float = 2.0
    log_buffer_size: int = 10_000

    # GET /metrics: allowed with this bearer token, or without one from these client networks.
    metrics_token: str | None = None
    metrics_allowed_networks: list[str] = Field(default_factory=lambda: ["127.0.0.1/32", "::1/128"])

    # USSD gateway callback (POST /api/ussd/callback, docs/ussd-sms.md): refused unless the secret is set and sent
    # (header X-USSD-Secret or query `secret`); when networks are listed, the caller must come from one of them.
    ussd_gateway_secret: str | None = None
    ussd_allowed_networks: list[str] = Field(default_factory=list)
    # Callbacks per phone number per window, shared by every worker (Redis or the login_throttle table).
    ussd_max_requests: int = 30
    ussd_window_seconds: int = 60

    # Reverse proxy: X-Forwarded-* are trusted from these addresses (comma-separated, "*" for any).
    forwarded_allow_ips: str = "127.0.0.1"

    @property
    def issuer(self) -> str:
        """The built-in issuer: ``builtin_issuer`` exactly as configured (an issuer is an opaque string compared
        byte for byte, OIDC Discovery §3), or by default the public base URL without its trailing slash."""
        return self.builtin_issuer or self.public_base_url.rstrip("/")


@lru_cache
def get_settings() -> Settings:
    return Settings()
