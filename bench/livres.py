"""The books of the bench's payments: the entry the service would have posted for each one, in set-based SQL.

The generated payments (bench/datagen.py) are copied in without their accounting entries, so the statements, the
monthly closing and the federation consolidation had nothing to read at scale (issues 30 and 32). This step posts
them as ``comptabiliser_paiement`` does (comptabilite/ecritures/service.py): the organisation's default accounts
and journals (``COMPTES_PAR_DEFAUT``, ``JOURNAUX_PAR_DEFAUT``), one entry per payment in the journal of its method,
numbered without gaps per journal and year, debit the method's treasury account, credit the income account of the
dues' kind (``COMPTE_PRODUIT_DEFAUT``), and the journals' counters set to the last number so that the app's next
entry follows. Idempotent: payments that already have their entry are skipped, so it also runs on reuse.
"""

from __future__ import annotations

import time
from typing import Any

import asyncpg

from unionflow.comptabilite.ecritures.tresorerie import (
    TYPE_PAR_METHODE,
    compte_standard,
    journal_de_type,
    type_de_methode,
)
from unionflow.comptabilite.produits.comptes import COMPTE_PRODUIT_DEFAUT, LIBELLE_NATURE
from unionflow.comptabilite.service import COMPTES_PAR_DEFAUT, JOURNAUX_PAR_DEFAUT, TYPE_PAR_CLASSE
from unionflow.core.libelles import METHODE_EN_MOTS
from unionflow.models.recette import NatureRecette

# The dues' kind → its kind of income (comptabilite/produits/comptes.py ``nature_cible``).
_NATURE_PAR_TYPE = {"EXCEPTIONNELLE": NatureRecette.COTISATION_EXCEPTIONNELLE,
                    "SOLIDARITE": NatureRecette.SOLIDARITE}


def _valeurs(rows: list[tuple[Any, ...]]) -> str:
    """A VALUES list of literals (reference data from our own constants, never user input)."""
    def lit(v: Any) -> str:
        return str(v) if isinstance(v, int) else "'" + str(v).replace("'", "''") + "'"
    return ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in rows)


def _statements() -> list[str]:
    comptes = _valeurs([(n, libelle, int(n[0]), TYPE_PAR_CLASSE[int(n[0])])
                        for n, libelle in COMPTES_PAR_DEFAUT.items()])
    journaux = _valeurs([(code, libelle, kind) for code, (libelle, kind) in JOURNAUX_PAR_DEFAUT.items()])
    # Every default account is opened above, the former 5215–5217 included, so each method books where the service
    # would for such a chart (compte_standard keeps a former account that is open).
    methodes = _valeurs([(m, compte_standard(type_de_methode(m), COMPTES_PAR_DEFAUT),
                          journal_de_type(type_de_methode(m)), METHODE_EN_MOTS.get(m, m)) for m in TYPE_PAR_METHODE])
    natures = _valeurs([(t, COMPTE_PRODUIT_DEFAUT[n], LIBELLE_NATURE[n]) for t, n in _NATURE_PAR_TYPE.items()])
    defaut = (COMPTE_PRODUIT_DEFAUT[NatureRecette.COTISATION], LIBELLE_NATURE[NatureRecette.COTISATION])
    return [
        f"""INSERT INTO compte_comptable (id, organisation_id, numero_compte, libelle, classe, type_compte, actif,
                                          sous_controle, created_at, updated_at)
            SELECT gen_random_uuid(), o.id, c.numero, c.libelle, c.classe, c.type, true, false, now(), now()
            FROM organisation o CROSS JOIN (VALUES {comptes}) AS c(numero, libelle, classe, type)
            WHERE NOT EXISTS (SELECT 1 FROM compte_comptable x
                              WHERE x.organisation_id = o.id AND x.numero_compte = c.numero)""",
        f"""INSERT INTO journal_comptable (id, organisation_id, code, libelle, type_journal, actif, created_at,
                                           updated_at)
            SELECT gen_random_uuid(), o.id, j.code, j.libelle, j.type, true, now(), now()
            FROM organisation o CROSS JOIN (VALUES {journaux}) AS j(code, libelle, type)
            WHERE NOT EXISTS (SELECT 1 FROM journal_comptable x WHERE x.organisation_id = o.id AND x.code = j.code)""",
        # One row per payment to book: its journal, its two accounts, its number in its journal and year.
        f"""CREATE TEMP TABLE bench_livre ON COMMIT DROP AS
            WITH a_poster AS (
                SELECT p.id, p.organisation_id, p.numero_recu, p.montant, p.methode,
                       (p.date_paiement AT TIME ZONE 'UTC')::date AS jour,
                       m.numero AS numero_tresorerie, m.code, m.mots,
                       coalesce(n.numero, '{defaut[0]}') AS numero_produit,
                       coalesce(n.libelle, '{defaut[1]}') AS libelle_produit
                FROM paiement p
                JOIN (VALUES {methodes}) AS m(methode, numero, code, mots) ON m.methode = p.methode
                JOIN paiement_allocation a ON a.paiement_id = p.id
                JOIN cotisation c ON c.id = a.cotisation_id
                LEFT JOIN (VALUES {natures}) AS n(type, numero, libelle) ON n.type = c.type_cotisation
                WHERE p.statut = 'VALIDE'
                  AND NOT EXISTS (SELECT 1 FROM ecriture_comptable e WHERE e.paiement_id = p.id))
            SELECT x.*, gen_random_uuid() AS ecriture_id, j.id AS journal_id,
                   extract(year FROM x.jour)::int AS annee,
                   coalesce((SELECT max(e.sequence) FROM ecriture_comptable e
                             WHERE e.journal_id = j.id AND e.annee = extract(year FROM x.jour)), 0)
                   + row_number() OVER (PARTITION BY j.id, extract(year FROM x.jour) ORDER BY x.jour, x.id)
                   AS sequence,
                   t.id AS compte_tresorerie, r.id AS compte_produit
            FROM a_poster x
            JOIN journal_comptable j ON j.organisation_id = x.organisation_id AND j.code = x.code
            JOIN compte_comptable t ON t.organisation_id = x.organisation_id
                                   AND t.numero_compte = x.numero_tresorerie
            JOIN compte_comptable r ON r.organisation_id = x.organisation_id AND r.numero_compte = x.numero_produit""",
        """INSERT INTO ecriture_comptable (id, organisation_id, journal_id, numero_piece, annee, sequence,
                                           date_ecriture, libelle, piece_reference, montant_total, paiement_id,
                                           cree_par, created_at)
           SELECT ecriture_id, organisation_id, journal_id, code || '-' || annee || '-' || lpad(sequence::text, 6, '0'),
                  annee, sequence, jour, 'Encaissement ' || numero_recu, numero_recu, montant, id, NULL,
                  jour::timestamp AT TIME ZONE 'UTC'
           FROM bench_livre""",
        """INSERT INTO ligne_ecriture (id, ecriture_id, compte_id, ordre, debit, credit, libelle)
           SELECT gen_random_uuid(), ecriture_id, compte_tresorerie, 0, montant, 0,
                  'Reçu ' || numero_recu || ' (' || mots || ')' FROM bench_livre
           UNION ALL
           SELECT gen_random_uuid(), ecriture_id, compte_produit, 1, 0, montant, libelle_produit FROM bench_livre""",
        # The app numbers its next entry from these counters (core/numbering.py, comptabilite ``compteur_ecriture``).
        """INSERT INTO compteur (nom, valeur)
           SELECT 'ECR-' || journal_id || '-' || annee, max(sequence)
           FROM ecriture_comptable GROUP BY journal_id, annee
           ON CONFLICT (nom) DO UPDATE SET valeur = greatest(compteur.valeur, excluded.valeur)""",
    ]


async def poster_livres(conn: asyncpg.Connection, log: Any) -> int:
    """Post the entries of the payments that have none; returns how many were posted."""
    t0 = time.monotonic()
    async with conn.transaction():
        for statement in _statements():
            await conn.execute(statement)
        posted = int(await conn.fetchval("SELECT count(*) FROM bench_livre"))
        if posted:
            # The lines' triggers appended one delta per bucket: folded as the migration's backfill would.
            from unionflow.comptabilite.soldes_sql import rebuild

            for statement in rebuild("postgresql"):
                await conn.execute(statement)
    if posted:
        await conn.execute("ANALYZE compte_comptable, journal_comptable, ecriture_comptable, ligne_ecriture, compteur")
    log(f"  livres: {posted:,} écritures posted in {time.monotonic() - t0:.1f}s")
    return posted
