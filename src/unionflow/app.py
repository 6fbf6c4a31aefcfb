"""Application factory. Every router is mounted here; authentication is required unless a route is on
``core.routing.PUBLIC_ROUTES``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware

from unionflow import __version__
from unionflow.adhesions.router import router as adhesions_router
from unionflow.admin_association.router import router as admin_association_router
from unionflow.analytics.router import router as analytics_router
from unionflow.approbations.router import router as approbations_router
from unionflow.assemblee.router import router as assemblee_router
from unionflow.audit.router import router as audit_router
from unionflow.auth import keys
from unionflow.auth.router import router as auth_router
from unionflow.backups.router import router as sauvegardes_router
from unionflow.clients_api.router import router as clients_api_router
from unionflow.clotures.deverrouillage.router import router as comptabilite_deverrouillage_router
from unionflow.clotures.exercice.router import router as comptabilite_cloture_router
from unionflow.clotures.mensuelle.router import router as comptabilite_cloture_mensuelle_router
from unionflow.comptabilite.etats.router import router as comptabilite_etats_router
from unionflow.comptabilite.produits.router import router as comptabilite_produits_router
from unionflow.comptabilite.router import router as comptabilite_router
from unionflow.comptabilite.smt.router import router as comptabilite_smt_router
from unionflow.comptabilite.sycebnl.router import router as comptabilite_sycebnl_router
from unionflow.compte.router import compte_router, dashboard_membre_router, dashboard_router
from unionflow.config import Settings, get_settings
from unionflow.configuration.router import router as configuration_router
from unionflow.console.router import install_console
from unionflow.core import journal, metrics
from unionflow.core.arret import DRAIN, DrainMiddleware
from unionflow.core.db import create_engine, create_sessionmaker, is_sqlite
from unionflow.core.dispatch import install_prefix_dispatch
from unionflow.core.docs import install_docs
from unionflow.core.errors import database_unavailable, install_error_handlers
from unionflow.core.headers import SecurityHeadersMiddleware
from unionflow.core.journal import JournalWriter
from unionflow.core.logs import configure_logging
from unionflow.core.middleware import RequestContextMiddleware, RequestGuardMiddleware
from unionflow.core.openapi import install_openapi, operation_id
from unionflow.core.principal_cache import PrincipalCache, PrincipalListener
from unionflow.core.production import check_production
from unionflow.core.replica import creer_replica
from unionflow.core.routing import allowed_methods
from unionflow.core.security import build_verifier
from unionflow.cotisations.router import router as cotisations_router
from unionflow.demandes_aide.router import router as demandes_aide_router
from unionflow.documents.router import router as documents_router
from unionflow.donnees_membre.router import router as donnees_membre_router
from unionflow.donnees_personnelles.router import conformite_router as conformite_router
from unionflow.donnees_personnelles.router import moi_router as donnees_moi_router
from unionflow.donnees_personnelles.router import router as donnees_personnelles_router
from unionflow.dons.router import router as dons_router
from unionflow.evenements.router import router as evenements_router
from unionflow.export.router import router as export_router
from unionflow.favoris.router import router as favoris_router
from unionflow.federation.router import router as federation_router
from unionflow.feedback.router import router as feedback_router
from unionflow.finance.approbations.router import router as finance_approbations_router
from unionflow.finance.budgets.router import router as finance_budgets_router
from unionflow.finance.workflow.router import router as finance_workflow_router
from unionflow.identity.password_router import router as password_router
from unionflow.identity.reinitialisation_router import router as reinitialisation_router
from unionflow.identity.router import router as admin_users_router
from unionflow.imports.router import router as imports_router
from unionflow.lcbft.router import parametres_router as parametres_lcbft_router
from unionflow.lcbft.router import router as lcbft_router
from unionflow.membres.router import router as membres_router
from unionflow.messagerie.router import router as messagerie_router
from unionflow.monitoring.router import logs_router as monitoring_logs_router
from unionflow.monitoring.router import metrics_router as monitoring_metrics_router
from unionflow.monitoring.router import router as monitoring_router
from unionflow.notifications.router import router as notifications_router
from unionflow.organisations.router import router as organisations_router
from unionflow.paiements.annulations.router import routers as annulations_routers
from unionflow.paiements.avoirs.router import router as avoirs_router
from unionflow.paiements.code_paiement.router import router as code_paiement_router
from unionflow.paiements.rapprochement_wave.router import router as rapprochement_wave_router
from unionflow.paiements.recus.router import router as recus_router
from unionflow.paiements.router import router as paiements_router
from unionflow.paiements.versements.router import router as versements_router
from unionflow.preferences.router import router as preferences_router
from unionflow.propositions_aide.router import router as propositions_aide_router
from unionflow.registres import EXECUTEURS, JOBS
from unionflow.roles.router import router as roles_router
from unionflow.saisies.router import routers as saisies_routers
from unionflow.scheduler.integre import planificateur_integre
from unionflow.scheduler.router import creer_router as creer_planificateur_router
from unionflow.sms.router import router as sms_router
from unionflow.status.router import probes as status_probes
from unionflow.status.router import router as status_router
from unionflow.suggestions.router import router as suggestions_router
from unionflow.system.router import router as systeme_router
from unionflow.tasks.router import router as taches_router
from unionflow.tickets.router import router as tickets_router
from unionflow.tresoreries.router import router as tresoreries_router
from unionflow.types_reference.router import router as types_reference_router
from unionflow.ussd.router import router as ussd_router
from unionflow.wave.router import router as wave_router
from unionflow.webhooks.router import router as webhooks_router

ROUTERS: list[APIRouter] = [
    auth_router,
    status_probes,
    status_router,
    systeme_router,
    organisations_router,
    federation_router,
    comptabilite_router,
    comptabilite_etats_router,
    comptabilite_smt_router,
    comptabilite_cloture_router,
    comptabilite_produits_router,
    comptabilite_sycebnl_router,
    assemblee_router,
    dons_router,
    comptabilite_deverrouillage_router,
    comptabilite_cloture_mensuelle_router,
    configuration_router,
    lcbft_router,
    parametres_lcbft_router,
    demandes_aide_router,
    adhesions_router,
    cotisations_router,
    imports_router,
    membres_router,
    donnees_membre_router,
    admin_association_router,
    roles_router,
    audit_router,
    # Before paiements_router: GET /api/paiements/par-code would otherwise match GET /api/paiements/{id}.
    code_paiement_router,
    paiements_router,
    avoirs_router,
    recus_router,
    compte_router,
    dashboard_membre_router,
    dashboard_router,
    versements_router,
    tresoreries_router,
    wave_router,
    rapprochement_wave_router,
    evenements_router,
    documents_router,
    admin_users_router,
    password_router,
    reinitialisation_router,
    finance_budgets_router,
    finance_approbations_router,
    approbations_router,
    finance_workflow_router,
    propositions_aide_router,
    types_reference_router,
    notifications_router,
    preferences_router,
    export_router,
    analytics_router,
    tickets_router,
    suggestions_router,
    feedback_router,
    favoris_router,
    messagerie_router,
    monitoring_router,
    sauvegardes_router,
    clients_api_router,
    webhooks_router,
    ussd_router,
    sms_router,
    donnees_personnelles_router,
    donnees_moi_router,
    conformite_router,
    creer_planificateur_router(JOBS),
    # Money undone by two people: spec undo paths of paiements/versements and /api/annulations.
    *annulations_routers,
    # Manual entries: the spec's entry route, under four eyes when it moves money (saisies/).
    *saisies_routers,
    taches_router,
    monitoring_logs_router,
    monitoring_metrics_router,
]

DESCRIPTION = """API de gestion d'une union d'organisations (fédérations, associations, mutuelles):
membres, adhésions, cotisations, paiements Wave, événements, documents.

Conventions: JSON camelCase, identifiants UUID, dates ISO 8601 avec fuseau, montants décimaux (XOF par défaut).
Pagination `page` (à partir de 0) et `size` (1 à 200). Erreurs RFC 9457 `application/problem+json`.
Les caractères de contrôle (U+0000 à U+001F sauf tabulation et fins de ligne, U+007F) sont refusés partout (textes,
champs de formulaire, cellules d'un fichier importé, chemins, paramètres): 400 `caractere-controle`.
Corps JSON: `Content-Type: application/json` (sinon 415), au plus 1 Mio par défaut (`UNIONFLOW_MAX_JSON_BODY_BYTES`,
sinon 413); les envois de fichiers ont leur propre limite.
Les textes reçus sont rognés (espaces de début et de fin, insécables compris) avant d'être validés: `minLength`,
`maxLength` et `pattern` s'appliquent au texte rogné (champs marqués `x-trimmed: true`).
En-têtes `X-Active-Organisation-Id` et `X-Active-Role`: voir docs/authorization.md."""


log = logging.getLogger("unionflow")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings, journal.handler)
    configure_logging(settings)
    check_production(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = app.state.engine
        try:
            async with app.state.sessionmaker() as session:
                await keys.ensure_signing_key(session)
                await session.commit()
        except Exception as exc:
            # A worker started during an outage serves 503s and loads the keys on the first request after it.
            if not database_unavailable(exc):
                raise
            log.warning("database unavailable at start-up: %r", exc)
        DRAIN.install()  # SIGTERM under uvicorn: refuse new requests (503) while the running ones finish
        stop = asyncio.Event()
        tasks = []
        if settings.log_retention_days > 0:
            # Stored system logs are written off the request path, by this task of each worker.
            tasks.append(asyncio.create_task(app.state.journal.run(app.state.sessionmaker, stop)))
        if app.state.principal_cache.needs_listener and settings.principal_cache_seconds > 0:
            listener = PrincipalListener(app.state.principal_cache, settings.database_url,
                                         settings.database_connect_timeout_seconds)
            tasks.append(asyncio.create_task(listener.run(stop)))
        async with planificateur_integre(engine, settings, JOBS, EXECUTEURS):
            yield
        stop.set()
        for task in tasks:
            await task
        await engine.dispose()
        await app.state.principal_engine.dispose()
        if app.state.replica is not None:
            await app.state.replica.engine.dispose()
        metrics.process_exit()

    app = FastAPI(title="UnionFlow — Union Management API", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None, generate_unique_id_function=operation_id)
    app.state.settings = settings
    app.state.engine = create_engine(settings)
    app.state.sessionmaker = create_sessionmaker(app.state.engine)
    # Authentication's own pool (core.db.principal_bind): a lookup is one short statement.
    app.state.principal_engine = create_engine(settings, pool_size=max(2, settings.database_pool_size // 2))
    # The heavy reads' replica, when configured (core/replica.py): None without one, or with SQLite.
    app.state.replica = creer_replica(settings)
    # The signing keys are read like the principal: on authentication's own pool. From the request pool, a burst of
    # write requests holding their sessions (SQLite: waiting for the write lock) left the key read no connection.
    app.state.token_verifier = build_verifier(settings, keys.jwks_loader(create_sessionmaker(
        app.state.principal_engine)))
    app.state.started_at = time.monotonic()
    app.state.journal = JournalWriter(settings)
    app.state.principal_cache = PrincipalCache(settings.principal_cache_seconds,
                                               needs_listener=not is_sqlite(settings.database_url))

    install_error_handlers(app, allowed_methods)  # first: its catch-all middleware is the innermost one
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=False,
                           allow_methods=["*"], allow_headers=["*"], expose_headers=["X-Total-Count", "Location"])
    # Inside the request context (its problems carry the request id and are logged), outside every route.
    app.add_middleware(RequestGuardMiddleware, max_body_bytes=settings.max_json_body_bytes)
    app.add_middleware(RequestContextMiddleware, engine=app.state.engine)
    for router in ROUTERS:
        app.include_router(router)
    install_openapi(app)
    install_docs(app)
    install_console(app)
    install_prefix_dispatch(app)
    app.add_middleware(DrainMiddleware)  # outside every route and guard: a stopping process reads no body
    # Added last: outermost, so error responses and CORS answers carry the headers too.
    app.add_middleware(SecurityHeadersMiddleware)
    return app
