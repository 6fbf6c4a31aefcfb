"""Like-for-like raw-SQL references of the two write scenarios (issue 12): the rows the service writes, in plain
SQL, so that the S5 ratios measure the service's overhead rather than the work it does and the old minimal
references skip.

A bench payment (``PUT /api/cotisations/{id}/payer`` ``{"montant": <due>}``, cash, by ADMIN, with an
``Idempotency-Key``) writes: the key (reserved, then its stored answer), the payment with the next gap-free receipt
number (counter ``REC-<organisation>-<year>``, issue 19), its allocation, the dues' balance and status, the
accounting entry (debit 571 cash, credit 7061 dues) numbered by its journal's counter, with its two lines, the
member's receipt notification, three audit entries (payment validated, dues paid, entry created) and the purge of
the cached dues statistics; it reads the member's LCB-FT cumulated amount (an alert row only above the thresholds,
never with the bench's amounts) and the member's name, address and preferences for the notification. Default
accounts and journal are opened on an organisation's first payment and kept in process memory, as the service does.

An approval writes: the adhesion's status, the applicant's membership (insert or reactivation) and two audit
entries, after checking the organisation is active.

PostgreSQL: the writes are data-modifying CTEs of one statement, as in the service; SQLite: one statement each
inside ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

OPERATION = "PUT /api/cotisations/{id}/payer"
APPELANT = "bench-ref"
# Defaults of the configuration (lcbft.*): the bench's amounts stay below them.
SEUIL_OPERATION, SEUIL_CUMUL, SEUIL_ESPECES, PERIODE = (Decimal(5_000_000), Decimal(10_000_000),
                                                        Decimal(1_000_000), 30)
STATS_PURGE_PG = ("DELETE FROM resultat_cache WHERE cle IN (SELECT cle FROM resultat_cache WHERE cle LIKE "
                  "'cotisations.%' FOR UPDATE SKIP LOCKED)")


def _details(**values: Any) -> str:
    return json.dumps(values, default=str)


class Lignes:
    """The rows of one payment, computed in Python (shared by both engines)."""

    def __init__(self, row: dict[str, Any], montant: Decimal, recu_n: int, ecr_n: int, journal: Any,
                 comptes: dict[str, Any], now: datetime) -> None:
        self.now = now
        self.pid, self.aid, self.eid = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        # Issue 19: one receipt series per organisation (counter REC-<organisation id>-<year>); the number shows
        # the organisation (the service prints its code; here the start of its id, unique enough for the bench).
        self.recu = f"REC-{str(row['organisation_id']).replace('-', '')[:8].upper()}-{now.year}-{recu_n:06d}"
        self.piece = f"CAI-{now.year}-{ecr_n:06d}"
        self.ecr_n = ecr_n
        due, deja = Decimal(str(row["montant_du"])), Decimal(str(row["montant_paye"]))
        self.applied = min(montant, due - deja)
        self.paid = deja + self.applied
        self.statut = "PAYEE" if self.paid >= due else "PARTIELLEMENT_PAYEE"
        self.montant = montant
        self.cle_verification = secrets.token_urlsafe(12)
        canal = "EMAIL" if row["email"] else "SMS" if row["telephone"] else "IN_APP"
        self.notification = (canal, row["email"] if canal == "EMAIL" else row["telephone"],
                             f"Reçu {self.recu} — {montant} FCFA",
                             f"Bonjour {row['prenom']} {row['membre_nom']},\n{row['org_nom']} a bien reçu votre "
                             f"paiement de {montant} FCFA (espèces) le {now:%d/%m/%Y}.\nReçu n° {self.recu}.\n"
                             f"- {row['numero_reference']}: soldé")
        self.audits = [
            ("VALIDER_PAIEMENT", "PAIEMENTS", "Paiement", self.pid, f"Reçu {self.recu}: {montant} XOF",
             _details(apres={"id": self.pid, "numero_recu": self.recu, "montant": montant, "statut": "VALIDE",
                             "methode": "ESPECES", "date_paiement": now, "membre_id": row["membre_id"],
                             "organisation_id": row["organisation_id"], "enregistre_par": "bench"})),
            ("PAYER", "COTISATIONS", "Cotisation", row["id"], None,
             _details(avant={"statut": row["statut"], "montant_paye": deja},
                      apres={"statut": self.statut, "montant_paye": self.paid})),
            ("CREER", "COMPTABILITE", "EcritureComptable", self.eid, f"Comptabilisation du paiement {self.recu}",
             _details(apres={"id": self.eid, "numero_piece": self.piece, "journal_id": journal,
                             "montant_total": montant, "paiement_id": self.pid, "date_ecriture": now.date()})),
        ]
        self.comptes = comptes

    def response(self, row: dict[str, Any]) -> dict[str, Any]:
        return {"id": str(row["id"]), "numeroReference": row["numero_reference"], "statut": self.statut,
                "montantDu": str(row["montant_du"]), "montantPaye": str(self.paid),
                "recu": {"paiementId": str(self.pid), "numeroRecu": self.recu, "montant": str(self.montant),
                         "methode": "ESPECES", "datePaiement": self.now.isoformat()}}


def alertes(montant: Decimal, cumul: Decimal) -> list[tuple[str, Decimal]]:
    found = [("SEUIL_OPERATION", SEUIL_OPERATION)] if montant >= SEUIL_OPERATION else []
    found += [("ESPECES_ELEVEES", SEUIL_ESPECES)] if montant >= SEUIL_ESPECES else []
    return found + ([("CUMUL_PERIODE", SEUIL_CUMUL)] if cumul + montant >= SEUIL_CUMUL else [])


# --- PostgreSQL (asyncpg) --------------------------------------------------------------------------------------

class ComptesPg:
    """Default accounts and cash journal per organisation, opened on first use, kept in process memory."""

    def __init__(self) -> None:
        self.known: dict[Any, tuple[dict[str, Any], Any]] = {}

    async def get(self, conn: Any, org: Any) -> tuple[dict[str, Any], Any]:
        """Inside the payment's transaction; ``keep`` once it has committed (rows opened by a transaction still
        running must not be used by others, as in the service)."""
        if org not in self.known:
            now = datetime.now(UTC)
            for numero, libelle, classe, kind in (("571", "Caisse", 5, "TRESORERIE"),
                                                  ("7061", "Cotisations", 7, "PRODUIT")):
                await conn.execute(
                    "INSERT INTO compte_comptable (id, organisation_id, numero_compte, libelle, classe, type_compte, "
                    "actif, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, true, $7, $7) "
                    "ON CONFLICT (organisation_id, numero_compte) DO NOTHING",
                    uuid.uuid4(), org, numero, libelle, classe, kind, now)
            await conn.execute(
                "INSERT INTO journal_comptable (id, organisation_id, code, libelle, type_journal, actif, created_at, "
                "updated_at) VALUES ($1, $2, 'CAI', 'Journal de caisse', 'CAISSE', true, $3, $3) "
                "ON CONFLICT (organisation_id, code) DO NOTHING", uuid.uuid4(), org, now)
            comptes = {r["numero_compte"]: r["id"] for r in await conn.fetch(
                "SELECT id, numero_compte FROM compte_comptable WHERE organisation_id = $1 "
                "AND numero_compte IN ('571', '7061')", org)}
            journal = await conn.fetchval("SELECT id FROM journal_comptable WHERE organisation_id = $1 "
                                          "AND code = 'CAI'", org)
            return comptes, journal
        return self.known[org]

    def keep(self, org: Any, value: tuple[dict[str, Any], Any]) -> None:
        self.known.setdefault(org, value)


async def pay_pg(conn: Any, comptes: ComptesPg, cid: uuid.UUID, montant: Decimal, key: str) -> tuple[int, Any]:
    now = datetime.now(UTC)
    async with conn.transaction():
        reserved = await conn.fetchval(
            "INSERT INTO cle_idempotence (id, cle, appelant, operation, empreinte, created_at) VALUES "
            "($1, $2, $3, $4, $5, $6) ON CONFLICT (appelant, operation, cle) DO NOTHING RETURNING id",
            uuid.uuid4(), key, APPELANT, OPERATION, f"{cid}:{montant}", now)
        if reserved is None:
            stored = await conn.fetchrow("SELECT statut_reponse, corps_reponse FROM cle_idempotence WHERE "
                                         "appelant = $1 AND operation = $2 AND cle = $3", APPELANT, OPERATION, key)
            return int(stored["statut_reponse"]), json.loads(stored["corps_reponse"])
        row = await conn.fetchrow(
            "SELECT c.id, c.numero_reference, c.membre_id, c.organisation_id, c.montant_du, c.montant_paye, "
            "c.statut, m.prenom, m.nom AS membre_nom, m.email, m.telephone, o.nom AS org_nom, "
            "p.canaux_par_type, p.refus_non_obligatoires FROM cotisation c JOIN membre m ON m.id = c.membre_id "
            "JOIN organisation o ON o.id = c.organisation_id LEFT JOIN preference_membre p ON p.membre_id = m.id "
            "WHERE c.id = $1 FOR UPDATE OF c", cid)
        if row is None:
            raise LookupError("Cotisation introuvable")
        if row["statut"] in ("PAYEE", "ANNULEE"):
            raise ValueError("Cotisation déjà réglée")
        org = row["organisation_id"]
        accounts, journal = await comptes.get(conn, org)
        ecr, rec = f"ECR-{journal}-{now.year}", f"REC-{org}-{now.year}"
        numbers = {r["nom"]: r["valeur"] for r in await conn.fetch(
            "WITH verrou AS (SELECT nom FROM compteur WHERE nom = ANY($1::varchar[]) ORDER BY nom FOR UPDATE) "
            "UPDATE compteur SET valeur = compteur.valeur + 1 FROM verrou WHERE compteur.nom = verrou.nom "
            "RETURNING compteur.nom, compteur.valeur", [ecr, rec])}
        for name in (ecr, rec):
            if name not in numbers:
                numbers[name] = await conn.fetchval(
                    "INSERT INTO compteur (nom, valeur) VALUES ($1, 1) ON CONFLICT (nom) DO UPDATE SET valeur = "
                    "compteur.valeur + 1 RETURNING valeur", name)
        cumul = await conn.fetchval(
            "SELECT coalesce(sum(montant), 0) FROM paiement WHERE membre_id = $1 AND organisation_id = $2 AND "
            "statut = 'VALIDE' AND date_paiement >= $3 AND date_paiement <= $4",
            row["membre_id"], org, now - timedelta(days=PERIODE), now)
        w = Lignes(dict(row), montant, numbers[rec], numbers[ecr], journal, accounts, now)
        canal, adresse, sujet, corps = w.notification
        args: list[Any] = [
            w.pid, w.recu, row["membre_id"], org, montant, montant - w.applied, now, w.cle_verification,  # 1-8
            w.aid, cid, w.applied, w.paid, w.statut,  # 9-13
            w.eid, journal, w.piece, now.year, w.ecr_n, now.date(), f"Encaissement {w.recu}",  # 14-20
            uuid.uuid4(), accounts["571"], f"Reçu {w.recu} (ESPECES)", uuid.uuid4(), accounts["7061"],  # 21-25
            uuid.uuid4(), canal, adresse, sujet, corps,  # 26-30
            reserved, json.dumps(w.response(dict(row))),  # 31-32
        ]
        audit_values = []
        for action, module, kind, entite, description, details in w.audits:
            base = len(args)
            args += [uuid.uuid4(), action, module, kind, str(entite), description, details]
            audit_values.append(f"(${base + 1}, $7, 'bench-admin', $4, ${base + 2}, ${base + 3}, ${base + 4}, "
                                f"${base + 5}, ${base + 6}, ${base + 7}::json, 'INFO', '127.0.0.1')")
        extra = ""
        for type_alerte, seuil in alertes(montant, Decimal(str(cumul))):
            args += [uuid.uuid4(), type_alerte, seuil]
            n = len(args)
            extra += (f", a{n} AS (INSERT INTO alerte_lcb_ft (id, organisation_id, membre_id, paiement_id, "
                      f"type_alerte, montant, seuil, devise, description, traitee, date_alerte) VALUES (${n - 2}, "
                      f"$4, $3, $1, ${n - 1}, $5, ${n}, 'XOF', 'bench', false, $7))")
        await conn.execute(
            "WITH p AS (INSERT INTO paiement (id, numero_recu, membre_id, organisation_id, montant, "
            "montant_non_affecte, devise, methode, statut, date_paiement, enregistre_par, commentaire, "
            "cle_verification, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'XOF', 'ESPECES', 'VALIDE', "
            "$7, 'bench-admin', 'Cotisation', $8, $7, $7)), "
            "a AS (INSERT INTO paiement_allocation (id, paiement_id, cotisation_id, montant) VALUES ($9, $1, $10, "
            "$11)), "
            "c AS (UPDATE cotisation SET montant_paye = $12, statut = $13, date_paiement = $7, methode_paiement = "
            "'ESPECES', reference_paiement = $2, updated_at = $7 WHERE id = $10), "
            "e AS (INSERT INTO ecriture_comptable (id, organisation_id, journal_id, numero_piece, annee, sequence, "
            "date_ecriture, libelle, piece_reference, montant_total, paiement_id, cree_par, created_at) VALUES "
            "($14, $4, $15, $16, $17, $18, $19, $20, $2, $5, $1, 'bench-admin', $7)), "
            "l AS (INSERT INTO ligne_ecriture (id, ecriture_id, compte_id, ordre, debit, credit, libelle) VALUES "
            "($21, $14, $22, 0, $5, 0, $23), ($24, $14, $25, 1, 0, $5, 'Cotisations')), "
            "n AS (INSERT INTO notification (id, membre_id, organisation_id, type_notification, canal, adresse, "
            "sujet, corps, statut, tentatives, source_type, source_id, cree_par, created_at, updated_at) VALUES "
            "($26, $3, $4, 'RECU_PAIEMENT', $27, $28, $29, $30, 'EN_ATTENTE', 0, 'Paiement', $1, 'bench-admin', "
            "$7, $7)), "
            "j AS (INSERT INTO audit_log (id, date_heure, utilisateur, organisation_id, type_action, module, "
            "entite_type, entite_id, description, details, severite, ip_address) VALUES "
            + ", ".join(audit_values) + "), "
            f"s AS ({STATS_PURGE_PG}), "
            "k AS (UPDATE cle_idempotence SET statut_reponse = 200, corps_reponse = $32::json WHERE id = $31)"
            + extra + " SELECT 1", *args)
    comptes.keep(org, (accounts, journal))
    return 200, w.response(dict(row))


async def approve_pg(conn: Any, aid: uuid.UUID) -> tuple[int, Any]:
    now = datetime.now(UTC)
    async with conn.transaction():
        row = await conn.fetchrow(
            "SELECT a.id, a.statut, a.membre_id, a.organisation_id, a.numero_reference, o.statut AS org_statut "
            "FROM adhesion a JOIN organisation o ON o.id = a.organisation_id WHERE a.id = $1 FOR UPDATE OF a", aid)
        if row is None:
            raise LookupError("Adhésion introuvable")
        if row["statut"] != "EN_ATTENTE" or row["org_statut"] != "ACTIVE":
            raise ValueError("Adhésion non en attente")
        membership = await conn.fetchrow("SELECT id, statut, roles FROM membre_organisation WHERE membre_id = $1 "
                                         "AND organisation_id = $2 FOR UPDATE", row["membre_id"],
                                         row["organisation_id"])
        mid = membership["id"] if membership else uuid.uuid4()
        write = ("UPDATE membre_organisation SET statut = 'ACTIF', date_fin = NULL, updated_at = $3 WHERE id = $4 "
                 "AND membre_id = $5 AND $7::date IS NOT NULL" if membership else
                 "INSERT INTO membre_organisation (id, membre_id, organisation_id, roles, statut, date_debut, "
                 "created_at, updated_at) VALUES ($4, $5, $6, '[\"MEMBRE\"]', 'ACTIF', $7, $3, $3)")
        await conn.execute(
            "WITH u AS (UPDATE adhesion SET statut = 'APPROUVEE', date_approbation = $3, approuve_par = "
            "'bench-admin', updated_at = $3 WHERE id = $1), m AS (" + write + "), "
            "j AS (INSERT INTO audit_log (id, date_heure, utilisateur, organisation_id, type_action, module, "
            "entite_type, entite_id, description, details, severite) VALUES "
            "($2, $3, 'bench-admin', $6, 'APPROUVER', 'ADHESIONS', 'Adhesion', $8, $9, $10::json, 'INFO'), "
            "($11, $3, 'bench-admin', $6, 'ACTIVER_ADHESION', 'MEMBRES', 'MembreOrganisation', $12, $9, "
            "$13::json, 'INFO')) SELECT 1",
            aid, uuid.uuid4(), now, mid, row["membre_id"], row["organisation_id"], date.today(), str(aid),
            f"Adhésion {row['numero_reference']} approuvée",
            _details(avant={"statut": "EN_ATTENTE"}, apres={"statut": "APPROUVEE", "approuve_par": "bench-admin"}),
            uuid.uuid4(), str(mid), _details(apres={"statut": "ACTIF", "roles": ["MEMBRE"], "date_fin": None}))
        return 200, {"id": str(aid), "statut": "APPROUVEE"}


# --- SQLite (aiosqlite, inside the caller's BEGIN IMMEDIATE) -------------------------------------------------------

def _ts(value: datetime) -> str:
    return value.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


class ComptesSqlite:
    def __init__(self) -> None:
        self.known: dict[str, tuple[dict[str, str], str]] = {}

    async def get(self, conn: Any, org: str) -> tuple[dict[str, str], str]:
        if org not in self.known:
            now = _ts(datetime.now(UTC))
            for numero, libelle, classe, kind in (("571", "Caisse", 5, "TRESORERIE"),
                                                  ("7061", "Cotisations", 7, "PRODUIT")):
                await conn.execute(
                    "INSERT INTO compte_comptable (id, organisation_id, numero_compte, libelle, classe, type_compte, "
                    "actif, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) "
                    "ON CONFLICT (organisation_id, numero_compte) DO NOTHING",
                    (uuid.uuid4().hex, org, numero, libelle, classe, kind, now, now))
            await conn.execute(
                "INSERT INTO journal_comptable (id, organisation_id, code, libelle, type_journal, actif, created_at, "
                "updated_at) VALUES (?, ?, 'CAI', 'Journal de caisse', 'CAISSE', 1, ?, ?) "
                "ON CONFLICT (organisation_id, code) DO NOTHING", (uuid.uuid4().hex, org, now, now))
            cur = await conn.execute("SELECT numero_compte, id FROM compte_comptable WHERE organisation_id = ? "
                                     "AND numero_compte IN ('571', '7061')", (org,))
            comptes = {r[0]: r[1] for r in await cur.fetchall()}
            cur = await conn.execute("SELECT id FROM journal_comptable WHERE organisation_id = ? AND code = 'CAI'",
                                     (org,))
            self.known[org] = (comptes, (await cur.fetchone())[0])
        return self.known[org]


async def _next(conn: Any, name: str) -> int:
    cur = await conn.execute("INSERT INTO compteur (nom, valeur) VALUES (?, 1) ON CONFLICT (nom) DO UPDATE SET "
                             "valeur = valeur + 1 RETURNING valeur", (name,))
    return int((await cur.fetchone())[0])


async def pay_sqlite(conn: Any, comptes: ComptesSqlite, cid: str, montant: Decimal, key: str) -> tuple[int, Any]:
    now = datetime.now(UTC)
    ts = _ts(now)
    reserved = uuid.uuid4().hex
    cur = await conn.execute(
        "INSERT INTO cle_idempotence (id, cle, appelant, operation, empreinte, created_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (appelant, operation, cle) DO NOTHING RETURNING id",
        (reserved, key, APPELANT, OPERATION, f"{cid}:{montant}", ts))
    if await cur.fetchone() is None:
        cur = await conn.execute("SELECT statut_reponse, corps_reponse FROM cle_idempotence WHERE appelant = ? AND "
                                 "operation = ? AND cle = ?", (APPELANT, OPERATION, key))
        stored = await cur.fetchone()
        return int(stored[0]), json.loads(stored[1])
    cur = await conn.execute(
        "SELECT c.id, c.numero_reference, c.membre_id, c.organisation_id, c.montant_du, c.montant_paye, c.statut, "
        "m.prenom, m.nom, m.email, m.telephone, o.nom, p.canaux_par_type, p.refus_non_obligatoires "
        "FROM cotisation c JOIN membre m ON m.id = c.membre_id JOIN organisation o ON o.id = c.organisation_id "
        "LEFT JOIN preference_membre p ON p.membre_id = m.id WHERE c.id = ?", (cid,))
    found = await cur.fetchone()
    if found is None:
        raise LookupError("Cotisation introuvable")
    row = dict(zip(("id", "numero_reference", "membre_id", "organisation_id", "montant_du", "montant_paye", "statut",
                    "prenom", "membre_nom", "email", "telephone", "org_nom", "canaux", "refus"), found, strict=True))
    if row["statut"] in ("PAYEE", "ANNULEE"):
        raise ValueError("Cotisation déjà réglée")
    org = row["organisation_id"]
    accounts, journal = await comptes.get(conn, org)
    ecr_n = await _next(conn, f"ECR-{journal}-{now.year}")
    rec_n = await _next(conn, f"REC-{uuid.UUID(str(org))}-{now.year}")
    cur = await conn.execute(
        "SELECT coalesce(sum(montant), 0) FROM paiement WHERE membre_id = ? AND organisation_id = ? AND "
        "statut = 'VALIDE' AND date_paiement >= ? AND date_paiement <= ?",
        (row["membre_id"], org, _ts(now - timedelta(days=PERIODE)), ts))
    cumul = Decimal(str((await cur.fetchone())[0]))
    w = Lignes(row, montant, rec_n, ecr_n, journal, accounts, now)
    pid, eid = w.pid.hex, w.eid.hex
    await conn.execute(
        "INSERT INTO paiement (id, numero_recu, membre_id, organisation_id, montant, montant_non_affecte, devise, "
        "methode, statut, date_paiement, enregistre_par, commentaire, cle_verification, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 'XOF', 'ESPECES', 'VALIDE', ?, 'bench-admin', 'Cotisation', ?, ?, ?)",
        (pid, w.recu, row["membre_id"], org, str(montant), str(montant - w.applied), ts, w.cle_verification, ts, ts))
    await conn.execute("INSERT INTO paiement_allocation (id, paiement_id, cotisation_id, montant) VALUES "
                       "(?, ?, ?, ?)", (w.aid.hex, pid, cid, str(w.applied)))
    await conn.execute("UPDATE cotisation SET montant_paye = ?, statut = ?, date_paiement = ?, methode_paiement = "
                       "'ESPECES', reference_paiement = ?, updated_at = ? WHERE id = ?",
                       (str(w.paid), w.statut, ts, w.recu, ts, cid))
    await conn.execute(
        "INSERT INTO ecriture_comptable (id, organisation_id, journal_id, numero_piece, annee, sequence, "
        "date_ecriture, libelle, piece_reference, montant_total, paiement_id, cree_par, created_at) VALUES "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'bench-admin', ?)",
        (eid, org, journal, w.piece, now.year, w.ecr_n, now.date().isoformat(), f"Encaissement {w.recu}", w.recu,
         str(montant), pid, ts))
    await conn.execute(
        "INSERT INTO ligne_ecriture (id, ecriture_id, compte_id, ordre, debit, credit, libelle) VALUES "
        "(?, ?, ?, 0, ?, '0', ?), (?, ?, ?, 1, '0', ?, 'Cotisations')",
        (uuid.uuid4().hex, eid, accounts["571"], str(montant), f"Reçu {w.recu} (ESPECES)", uuid.uuid4().hex, eid,
         accounts["7061"], str(montant)))
    canal, adresse, sujet, corps = w.notification
    await conn.execute(
        "INSERT INTO notification (id, membre_id, organisation_id, type_notification, canal, adresse, sujet, corps, "
        "statut, tentatives, source_type, source_id, cree_par, created_at, updated_at) VALUES (?, ?, ?, "
        "'RECU_PAIEMENT', ?, ?, ?, ?, 'EN_ATTENTE', 0, 'Paiement', ?, 'bench-admin', ?, ?)",
        (uuid.uuid4().hex, row["membre_id"], org, canal, adresse, sujet, corps, pid, ts, ts))
    for type_alerte, seuil in alertes(montant, cumul):
        await conn.execute(
            "INSERT INTO alerte_lcb_ft (id, organisation_id, membre_id, paiement_id, type_alerte, montant, seuil, "
            "devise, description, traitee, date_alerte) VALUES (?, ?, ?, ?, ?, ?, ?, 'XOF', 'bench', 0, ?)",
            (uuid.uuid4().hex, org, row["membre_id"], pid, type_alerte, str(montant), str(seuil), ts))
    await conn.execute(
        "INSERT INTO audit_log (id, date_heure, utilisateur, organisation_id, type_action, module, entite_type, "
        "entite_id, description, details, severite, ip_address) VALUES "
        + ", ".join(["(?, ?, 'bench-admin', ?, ?, ?, ?, ?, ?, ?, 'INFO', '127.0.0.1')"] * len(w.audits)),
        [v for action, module, kind, entite, description, details in w.audits
         for v in (uuid.uuid4().hex, ts, org, action, module, kind, str(entite), description, details)])
    await conn.execute("DELETE FROM resultat_cache WHERE cle LIKE 'cotisations.%'")
    body = w.response(row)
    await conn.execute("UPDATE cle_idempotence SET statut_reponse = 200, corps_reponse = ? WHERE id = ?",
                       (json.dumps(body), reserved))
    return 200, body


async def approve_sqlite(conn: Any, aid: str) -> tuple[int, Any]:
    now = _ts(datetime.now(UTC))
    cur = await conn.execute("SELECT a.statut, a.membre_id, a.organisation_id, a.numero_reference, o.statut FROM "
                             "adhesion a JOIN organisation o ON o.id = a.organisation_id WHERE a.id = ?", (aid,))
    row = await cur.fetchone()
    if row is None:
        raise LookupError("Adhésion introuvable")
    statut, membre, org, numero, org_statut = row
    if statut != "EN_ATTENTE" or org_statut != "ACTIVE":
        raise ValueError("Adhésion non en attente")
    cur = await conn.execute("SELECT id FROM membre_organisation WHERE membre_id = ? AND organisation_id = ?",
                             (membre, org))
    existing = await cur.fetchone()
    await conn.execute("UPDATE adhesion SET statut = 'APPROUVEE', date_approbation = ?, approuve_par = "
                       "'bench-admin', updated_at = ? WHERE id = ?", (now, now, aid))
    if existing:
        mid = existing[0]
        await conn.execute("UPDATE membre_organisation SET statut = 'ACTIF', date_fin = NULL, updated_at = ? "
                           "WHERE id = ?", (now, mid))
    else:
        mid = uuid.uuid4().hex
        await conn.execute("INSERT INTO membre_organisation (id, membre_id, organisation_id, roles, statut, "
                           "date_debut, created_at, updated_at) VALUES (?, ?, ?, '[\"MEMBRE\"]', 'ACTIF', ?, ?, ?)",
                           (mid, membre, org, date.today().isoformat(), now, now))
    await conn.execute(
        "INSERT INTO audit_log (id, date_heure, utilisateur, organisation_id, type_action, module, entite_type, "
        "entite_id, description, details, severite) VALUES (?, ?, 'bench-admin', ?, 'APPROUVER', 'ADHESIONS', "
        "'Adhesion', ?, ?, ?, 'INFO'), (?, ?, 'bench-admin', ?, 'ACTIVER_ADHESION', 'MEMBRES', 'MembreOrganisation', "
        "?, ?, ?, 'INFO')",
        (uuid.uuid4().hex, now, org, aid, f"Adhésion {numero} approuvée",
         _details(avant={"statut": "EN_ATTENTE"}, apres={"statut": "APPROUVEE", "approuve_par": "bench-admin"}),
         uuid.uuid4().hex, now, org, mid, f"Adhésion {numero} approuvée",
         _details(apres={"statut": "ACTIF", "roles": ["MEMBRE"], "date_fin": None})))
    return 200, {"id": aid, "statut": "APPROUVEE"}
