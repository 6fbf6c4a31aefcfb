"""Synthetic but realistic union data, streamed in chunks into the 0001_core tables.

PostgreSQL: fresh database, migrations, secondary indexes and FK triggers off during COPY (asyncpg
``copy_records_to_table``), indexes rebuilt, VACUUM ANALYZE, then a marker row so a rerun at the same
scale reuses the data. SQLite: the same rows through SQLAlchemy Core ``executemany`` (small scale).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import asyncpg

from bench.config import PG_ADMIN_DSN, Scale, pg_url
from bench.livres import poster_livres

CHUNK = 50_000
EPOCH = datetime(2023, 1, 1, tzinfo=UTC)
PRENOMS = ["Awa", "Moussa", "Fatou", "Ibrahima", "Aminata", "Oumar", "Mariama", "Cheikh", "Aïssatou", "Mamadou",
           "Khady", "Abdoulaye", "Ndeye", "Seydou", "Kadiatou", "Boubacar", "Rokhaya", "Adama", "Binta", "Souleymane"]
NOMS = ["Diop", "Ndiaye", "Fall", "Sow", "Diallo", "Ba", "Traoré", "Koné", "Ouédraogo", "Camara", "Cissé",
        "Sylla", "Touré", "Keïta", "Gueye", "Faye", "Sarr", "Coulibaly", "Kouassi", "Yao"]
VILLES = [("Dakar", "Dakar", "SN"), ("Thiès", "Thiès", "SN"), ("Saint-Louis", "Saint-Louis", "SN"),
          ("Abidjan", "Lagunes", "CI"), ("Bouaké", "Vallée du Bandama", "CI"), ("Bamako", "Bamako", "ML"),
          ("Ouagadougou", "Centre", "BF"), ("Lomé", "Maritime", "TG"), ("Cotonou", "Littoral", "BJ"),
          ("Niamey", "Niamey", "NE")]
PROFESSIONS = ["Enseignant", "Commerçante", "Infirmier", "Agriculteur", "Couturière", "Chauffeur", "Comptable",
               "Étudiant", "Artisan", "Fonctionnaire"]
ORG_TYPES = ["ASSOCIATION", "MUTUELLE", "COOPERATIVE", "TONTINE"]
METHODES = ["WAVE", "WAVE", "WAVE", "ESPECES", "ESPECES", "ORANGE_MONEY", "VIREMENT", "CHEQUE"]
# (statut, weight): most historical dues are paid; a realistic share is late or partially paid.
COT_STATUTS = [("PAYEE", 55), ("EN_ATTENTE", 20), ("EN_RETARD", 15), ("PARTIELLEMENT_PAYEE", 7), ("ANNULEE", 3)]
ADH_STATUTS = [("EN_ATTENTE", 40), ("APPROUVEE", 20), ("PAYEE", 30), ("REJETEE", 7), ("ANNULEE", 3)]
AUDIT_ACTIONS = [("COTISATIONS", "Cotisation", "CREATE"), ("COTISATIONS", "Cotisation", "PAIEMENT"),
                 ("MEMBRES", "Membre", "UPDATE"), ("ADHESIONS", "Adhesion", "APPROBATION"),
                 ("AUTH", "UtilisateurLocal", "LOGIN"), ("ORGANISATIONS", "Organisation", "UPDATE"),
                 ("PAIEMENTS", "Paiement", "CREATE"), ("MEMBRES", "Membre", "CREATE")]
SEVERITES = ["INFO"] * 90 + ["WARNING"] * 7 + ["ERROR"] * 2 + ["CRITICAL"]
JSON_COLUMNS = {"roles", "details"}
D = {v: Decimal(v) for v in (0, 500, 1000, 1500, 2000, 2500, 5000, 10000, 12000, 25000, 50000)}


def _weighted(pairs: list[tuple[str, int]]) -> list[str]:
    return [name for name, weight in pairs for _ in range(weight)]


COT_POOL = _weighted(COT_STATUTS)
ADH_POOL = _weighted(ADH_STATUTS)


@dataclass
class Universe:
    """Ids produced by earlier tables that later ones reference."""

    organisations: list[uuid.UUID] = field(default_factory=list)
    membres: list[uuid.UUID] = field(default_factory=list)
    # (membre, organisation) of each active membership
    memberships: list[tuple[uuid.UUID, uuid.UUID]] = field(default_factory=list)
    paid_cotisations: list[tuple[uuid.UUID, uuid.UUID, uuid.UUID, Decimal, datetime]] = field(default_factory=list)


@dataclass
class TableData:
    table: str
    columns: list[str]
    chunks: Iterator[list[tuple[Any, ...]]]


def _ts(rng: random.Random, days: int = 1000) -> datetime:
    return EPOCH + timedelta(seconds=rng.randrange(days * 86400))


def organisations(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "nom", "nom_court", "type_organisation", "statut", "parent_id", "description", "email",
            "telephone", "ville", "region", "pays", "devise", "created_at", "updated_at"]

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        union_id = uuid.uuid4()
        federations: list[uuid.UUID] = []
        for i in range(scale.organisations):
            oid = union_id if i == 0 else uuid.uuid4()
            ville, region, pays = VILLES[i % len(VILLES)]
            if i == 0:
                kind, parent, nom = "UNION", None, "Union des Organisations Solidaires d'Afrique de l'Ouest"
            elif i <= max(1, scale.organisations // 20):
                kind, parent, nom = "FEDERATION", union_id, f"Fédération régionale de {ville} {i}"
                federations.append(oid)
            else:
                kind = ORG_TYPES[i % len(ORG_TYPES)]
                parent = federations[i % len(federations)]
                nom = f"{kind.title()} {NOMS[i % len(NOMS)]} de {ville} {i}"
            created = _ts(rng, 200)
            statut = "SUSPENDUE" if i % 97 == 96 else "ACTIVE"
            rows.append((oid, nom, f"ORG{i:04d}", kind, statut, parent, None, f"contact{i}@org.bench.local",
                         f"+2217{i:08d}", ville, region, pays, "XOF", created, created))
            uni.organisations.append(oid)
        yield rows

    return TableData("organisation", cols, gen())


def membres(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "numero_membre", "prenom", "nom", "email", "telephone", "date_naissance", "genre", "profession",
            "ville", "pays", "statut", "created_at", "updated_at"]

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        for i in range(scale.membres):
            mid = uuid.uuid4()
            ville, _region, pays = VILLES[rng.randrange(len(VILLES))]
            created = _ts(rng, 900)
            statut = "ACTIF" if rng.random() < 0.94 else rng.choice(["SUSPENDU", "INACTIF", "RADIE"])
            rows.append((mid, f"M{created.year}-{i:07d}", rng.choice(PRENOMS), rng.choice(NOMS),
                         f"membre{i}@bench.unionflow.local", f"+22177{i:07d}",
                         date(1950 + rng.randrange(55), 1 + rng.randrange(12), 1 + rng.randrange(28)),
                         rng.choice(["F", "M"]), rng.choice(PROFESSIONS), ville, pays, statut, created, created))
            uni.membres.append(mid)
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    return TableData("membre", cols, gen())


def memberships(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "membre_id", "organisation_id", "roles", "statut", "date_debut", "created_at", "updated_at"]
    base_orgs = uni.organisations[1:] or uni.organisations

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        for i, mid in enumerate(uni.membres):
            orgs = [base_orgs[i % len(base_orgs)]]
            if rng.random() < 0.15:
                other = rng.choice(base_orgs)
                if other != orgs[0]:
                    orgs.append(other)
            for org in orgs:
                roles = ["MEMBRE"] if rng.random() > 0.01 else ["MEMBRE", rng.choice(["TRESORIER", "SECRETAIRE"])]
                created = _ts(rng, 900)
                rows.append((uuid.uuid4(), mid, org, roles, "ACTIF", created.date(), created, created))
                uni.memberships.append((mid, org))
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    return TableData("membre_organisation", cols, gen())


def cotisations(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "numero_reference", "membre_id", "organisation_id", "type_cotisation", "libelle", "annee", "mois",
            "montant_du", "montant_paye", "devise", "date_echeance", "date_paiement", "statut", "methode_paiement",
            "reference_paiement", "cle_generation", "created_at", "updated_at"]
    keep_paid = scale.paiements
    paid_ratio = min(1.0, keep_paid / max(1, scale.cotisations * 0.6))

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        n_ms = len(uni.memberships)
        for n in range(scale.cotisations):
            mid, org = uni.memberships[n % n_ms]
            # Each membership walks forward through monthly periods, starting January 2023.
            period = n // n_ms
            annee, mois = 2023 + (period // 12) % 4, 1 + period % 12
            r = rng.random()
            if r < 0.82:
                kind, du = "MENSUELLE", D[rng.choice((1000, 1500, 2000, 2500, 5000))]
            elif r < 0.92:
                kind, du = "ANNUELLE", D[rng.choice((12000, 25000))]
            elif r < 0.97:
                kind, du = "SOLIDARITE", D[rng.choice((500, 1000, 2000))]
            else:
                kind, du = "EXCEPTIONNELLE", D[rng.choice((5000, 10000, 50000))]
            echeance = date(annee, mois, 28)
            created = datetime(annee, mois, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(86400 * 5))
            statut = rng.choice(COT_POOL)
            paye, paid_at, methode, ref = D[0], None, None, None
            if statut == "PAYEE":
                paye = du
            elif statut == "PARTIELLEMENT_PAYEE":
                paye = (du / 2).quantize(Decimal(1))
            if paye:
                paid_at = created + timedelta(seconds=rng.randrange(86400 * 40))
                methode = rng.choice(METHODES)
                ref = f"T{n:010d}"
            cid = uuid.uuid4()
            rows.append((cid, f"COT-{annee}-{n:09d}", mid, org, kind, f"Cotisation {kind.lower()} {mois:02d}/{annee}",
                         annee, mois if kind != "ANNUELLE" else None, du, paye, "XOF", echeance, paid_at, statut,
                         methode, ref, f"{org}:{annee}-{mois:02d}:{kind}:{n}", created, paid_at or created))
            if paye and len(uni.paid_cotisations) < keep_paid and rng.random() < paid_ratio:
                assert paid_at is not None
                uni.paid_cotisations.append((cid, mid, org, paye, paid_at))
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    return TableData("cotisation", cols, gen())


def paiements(scale: Scale, uni: Universe, rng: random.Random) -> tuple[TableData, TableData]:
    pcols = ["id", "numero_recu", "membre_id", "organisation_id", "montant", "montant_non_affecte", "devise",
             "methode", "statut", "reference_externe", "date_paiement", "enregistre_par", "created_at", "updated_at",
             "cle_verification"]
    acols = ["id", "paiement_id", "cotisation_id", "adhesion_id", "montant"]
    allocations: list[tuple[Any, ...]] = []

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        for n, (cid, mid, org, montant, paid_at) in enumerate(uni.paid_cotisations):
            pid = uuid.uuid4()
            methode = rng.choice(METHODES)
            rows.append((pid, f"REC-{paid_at.year}-{n:08d}", mid, org, montant, D[0], "XOF", methode, "VALIDE",
                         f"W{n:012d}" if methode == "WAVE" else None, paid_at, "tresorier@bench.unionflow.local",
                         paid_at, paid_at, f"{rng.getrandbits(64):016x}"))
            allocations.append((uuid.uuid4(), pid, cid, None, montant))
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    def gen_alloc() -> Iterator[list[tuple[Any, ...]]]:
        for i in range(0, len(allocations), CHUNK):
            yield allocations[i:i + CHUNK]

    return TableData("paiement", pcols, gen()), TableData("paiement_allocation", acols, gen_alloc())


def adhesions(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "numero_reference", "membre_id", "organisation_id", "statut", "date_demande", "frais_adhesion",
            "montant_paye", "devise", "date_approbation", "approuve_par", "date_paiement", "methode_paiement",
            "date_rejet", "motif_rejet", "created_at", "updated_at"]

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        for n in range(scale.adhesions):
            mid = uni.membres[n % len(uni.membres)]
            org = rng.choice(uni.organisations[1:] or uni.organisations)
            statut = rng.choice(ADH_POOL)
            created = _ts(rng, 1000)
            frais = D[rng.choice((2000, 5000, 10000))]
            approved = created + timedelta(days=2) if statut in ("APPROUVEE", "PAYEE") else None
            paid = approved + timedelta(days=1) if statut == "PAYEE" and approved else None
            rejected = created + timedelta(days=3) if statut == "REJETEE" else None
            rows.append((uuid.uuid4(), f"ADH-{created.year}-{n:08d}", mid, org, statut, created.date(), frais,
                         frais if paid else D[0], "XOF", approved, "secretaire@bench.unionflow.local" if approved
                         else None, paid, rng.choice(METHODES) if paid else None, rejected,
                         "Dossier incomplet" if rejected else None, created, paid or approved or rejected or created))
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    return TableData("adhesion", cols, gen())


def audit(scale: Scale, uni: Universe, rng: random.Random) -> TableData:
    cols = ["id", "date_heure", "utilisateur", "utilisateur_id", "role_actif", "organisation_id", "type_action",
            "module", "entite_type", "entite_id", "description", "details", "ip_address", "user_agent", "severite"]
    users = [(f"agent{i}@bench.unionflow.local", str(uuid.uuid4())) for i in range(300)]

    def gen() -> Iterator[list[tuple[Any, ...]]]:
        rows = []
        for n in range(scale.audit):
            module, entite, action = AUDIT_ACTIONS[rng.randrange(len(AUDIT_ACTIONS))]
            email, sub = users[rng.randrange(len(users))]
            rows.append((uuid.uuid4(), _ts(rng, 1050), email, sub, rng.choice(("TRESORIER", "ADMIN", "SECRETAIRE")),
                         uni.organisations[rng.randrange(len(uni.organisations))], action, module, entite,
                         str(uuid.uuid4()), f"{action} {entite}", {"n": n}, f"10.0.{n % 250}.{n % 200}",
                         "UnionFlow-Mobile/2.3 (Android 13)", SEVERITES[rng.randrange(len(SEVERITES))]))
            if len(rows) >= CHUNK:
                yield rows
                rows = []
        if rows:
            yield rows

    return TableData("audit_log", cols, gen())


def all_tables(scale: Scale, seed: int = 20261121) -> Iterator[TableData]:
    """Tables in FK order; each generator fills ``Universe`` for the next ones, so consume in order."""
    rng = random.Random(seed)
    uni = Universe()
    yield organisations(scale, uni, rng)
    yield membres(scale, uni, rng)
    yield memberships(scale, uni, rng)
    yield cotisations(scale, uni, rng)
    pay, alloc = paiements(scale, uni, rng)
    yield pay
    yield alloc
    yield adhesions(scale, uni, rng)
    yield audit(scale, uni, rng)


# ----------------------------------------------------------------------------------------------- PostgreSQL

MARKER_DDL = ("CREATE TABLE IF NOT EXISTS bench_marker (scale text PRIMARY KEY, loaded_at timestamptz NOT NULL, "
              "heads text NOT NULL, params jsonb NOT NULL, seconds double precision NOT NULL)")


def migration_heads() -> str:
    from alembic.script import ScriptDirectory

    from unionflow.migrations.alembic import alembic_config

    return ",".join(sorted(ScriptDirectory.from_config(alembic_config()).get_heads()))


async def _marker(database: str, scale: Scale) -> dict[str, Any] | None:
    try:
        conn = await asyncpg.connect(pg_url(database))
    except asyncpg.InvalidCatalogNameError:
        return None
    try:
        row = await conn.fetchrow("SELECT * FROM bench_marker WHERE scale = $1", scale.name)
    except asyncpg.UndefinedTableError:
        return None
    finally:
        await conn.close()
    if row is None or json.loads(row["params"]) != scale.as_dict():
        return None
    return dict(row)


async def _recreate(database: str) -> None:
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        await admin.execute(f"CREATE DATABASE {database}")
    finally:
        await admin.close()


async def _secondary_indexes(conn: asyncpg.Connection, table: str) -> list[tuple[str, str]]:
    rows = await conn.fetch(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = $1 AND i.schemaname = 'public' "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)", table)
    return [(r["indexname"], r["indexdef"]) for r in rows]


async def _copy_table(conn: asyncpg.Connection, data: TableData, log: Any) -> int:
    t0 = time.monotonic()
    indexes = await _secondary_indexes(conn, data.table)
    for name, _ in indexes:
        await conn.execute(f'DROP INDEX "{name}"')
    json_idx = [i for i, c in enumerate(data.columns) if c in JSON_COLUMNS]
    total = 0
    for chunk in data.chunks:
        if json_idx:
            chunk = [tuple(json.dumps(v) if i in json_idx else v for i, v in enumerate(row)) for row in chunk]
        await conn.copy_records_to_table(data.table, records=chunk, columns=data.columns)
        total += len(chunk)
    t1 = time.monotonic()
    for _, ddl in indexes:
        await conn.execute(ddl)
    log(f"  {data.table}: {total:,} rows copied in {t1 - t0:.1f}s, {len(indexes)} indexes rebuilt in "
        f"{time.monotonic() - t1:.1f}s")
    return total


async def _evenements(conn: asyncpg.Connection, scale: Scale, log: Any) -> str:
    """Events of the organisations: past and upcoming, public or members-only, most with a capacity."""
    if not await conn.fetchval("SELECT to_regclass('public.evenement') IS NOT NULL"):
        return "skipped: no evenement table"
    organisations = [r[0] for r in await conn.fetch("SELECT id FROM organisation")]
    rng = random.Random(7)
    cols = ["id", "titre", "description", "type_evenement", "date_debut", "date_fin", "lieu", "capacite_max",
            "prix", "devise", "inscription_requise", "visibilite", "organisation_id", "statut", "created_at",
            "updated_at"]
    rows = []
    for n in range(scale.evenements):
        debut = _ts(rng, 1200)
        created = debut - timedelta(days=rng.randrange(7, 90))
        rows.append((uuid.uuid4(), f"{rng.choice(('Assemblée générale', 'Formation', 'Réunion'))} {n}",
                     "Ordre du jour communiqué aux membres", rng.choice(("ASSEMBLEE_GENERALE", "REUNION", "FORMATION")),
                     debut, debut + timedelta(hours=rng.choice((2, 3, 8))), f"Salle {n % 50}",
                     rng.choice((None, 30, 100, 500)), D[rng.choice((0, 2000, 5000))], "XOF", rng.random() < 0.7,
                     rng.choice(("PUBLIC", "MEMBRES")), rng.choice(organisations),
                     rng.choices(("PLANIFIE", "CONFIRME", "ANNULE"), (50, 45, 5))[0], created, created))
    await conn.copy_records_to_table("evenement", records=rows, columns=cols)
    log(f"  evenement: {len(rows):,} rows")
    return f"{len(rows)} rows"


async def _upgrade_in_place(database: str, heads: str, log: Any) -> None:
    from unionflow.migrations.alembic import upgrade

    t0 = time.monotonic()
    await asyncio.to_thread(upgrade, pg_url(database))
    conn = await asyncpg.connect(pg_url(database))
    try:
        await conn.execute("ANALYZE")
        await conn.execute("UPDATE bench_marker SET heads = $1", migration_heads())
    finally:
        await conn.close()
    log(f"upgraded {database} in place from {heads} to {migration_heads()} in {time.monotonic() - t0:.0f}s")


async def _rebuild_synthese(conn: asyncpg.Connection, log: Any) -> None:
    """COPY under ``session_replication_role = replica`` fires no user trigger, so the dues summary the triggers
    keep (migrations 0013 and 0046) is computed once from the loaded dues, as the migrations' backfills do."""
    from unionflow.cotisations.synthese_sql import rebuild, rebuild_membres

    t0 = time.monotonic()
    async with conn.transaction():
        for statement in rebuild("postgresql") + rebuild_membres("postgresql"):
            await conn.execute(statement)
    buckets = await conn.fetchval("SELECT count(*) FROM cotisation_synthese")
    log(f"  cotisation_synthese: {buckets:,} buckets rebuilt in {time.monotonic() - t0:.1f}s")


async def ensure_pg(scale: Scale, database: str, log: Any, force: bool = False) -> dict[str, Any]:
    """Reuse ``database`` when its marker matches this scale (upgrading it to the current migrations), else build
    it fresh."""
    if not force:
        marker = await _marker(database, scale)
        if marker is not None and marker["heads"] != migration_heads():
            # Data loaded under older migrations is upgraded in place, as a production database would be (and
            # the new migrations' backfills meet the bench's volume), instead of being generated again.
            await _upgrade_in_place(database, marker["heads"], log)
        if marker is not None:
            # Data built before the books were part of it gets them now (a no-op once posted).
            conn = await asyncpg.connect(pg_url(database))
            try:
                await poster_livres(conn, log)
            finally:
                await conn.close()
            log(f"reusing {database} (loaded {marker['loaded_at']:%Y-%m-%d %H:%M}, {marker['seconds']:.0f}s)")
            return {"reused": True, "seconds": marker["seconds"]}
    t0 = time.monotonic()
    log(f"building {database} at scale {scale.name} ...")
    await _recreate(database)
    from unionflow.migrations.alembic import upgrade

    await asyncio.to_thread(upgrade, pg_url(database))
    conn = await asyncpg.connect(pg_url(database))
    events = "skipped"
    try:
        # Generated data is consistent by construction: skip per-row FK trigger checks while loading.
        await conn.execute("SET session_replication_role = replica; SET maintenance_work_mem = '512MB'")
        for data in all_tables(scale):
            await _copy_table(conn, data, log)
        try:
            events = await _evenements(conn, scale, log)
        except (asyncpg.PostgresError, ValueError, TypeError) as exc:
            events = f"skipped: {type(exc).__name__}: {exc}"
        await conn.execute("SET session_replication_role = origin")
        await _rebuild_synthese(conn, log)
        await poster_livres(conn, log)
        t1 = time.monotonic()
        await conn.execute("VACUUM ANALYZE")
        log(f"  VACUUM ANALYZE {time.monotonic() - t1:.1f}s")
        seconds = time.monotonic() - t0
        await conn.execute(MARKER_DDL)
        await conn.execute("INSERT INTO bench_marker VALUES ($1, now(), $2, $3, $4)", scale.name, migration_heads(),
                           json.dumps(scale.as_dict()), seconds)
    finally:
        await conn.close()
    log(f"{database} ready in {seconds:.0f}s (evenements: {events})")
    return {"reused": False, "seconds": seconds, "evenements": events}


# ----------------------------------------------------------------------------------------------- SQLite

def build_sqlite(path: str, scale: Scale, log: Any) -> None:
    """Fresh SQLite file through the project's migrations, rows typed by the ORM's own column types."""
    from pathlib import Path

    from sqlalchemy import create_engine, text

    from unionflow.comptabilite import soldes_sql
    from unionflow.cotisations.synthese_sql import rebuild
    from unionflow.migrations.alembic import upgrade
    from unionflow.models import Base

    t0 = time.monotonic()
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{path}"
    upgrade(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        for data in all_tables(scale):
            table = Base.metadata.tables[data.table]
            for chunk in data.chunks:
                conn.execute(table.insert(), [dict(zip(data.columns, row, strict=True)) for row in chunk])
    with engine.begin() as conn:
        # SQLite triggers fired on every row (one delta each): fold them as the compaction job would, in one go.
        for statement in rebuild("sqlite") + soldes_sql.rebuild("sqlite"):
            conn.execute(text(statement))
    engine.dispose()
    log(f"SQLite {path} built in {time.monotonic() - t0:.1f}s")
