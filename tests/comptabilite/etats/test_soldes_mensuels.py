"""The statements' balances read from the ledger summary per month (migration 0047,
etats/soldes_repository.py) equal the balances computed here in Python from the entry lines alone, whatever
wrote the lines and whatever period is asked.

The property test draws sequences of writes through SQL (entries of one or two lines added, an entry deleted with
its lines by the cascade, a line deleted, a line's amount and account changed, an entry moved to another date or
journal) with compactions at random points, then asks every balance the statements ask (period, without the
closing journal, cumulative, class 5 alone, and the consolidated three in one pass) for periods whose bounds fall
on, inside and across months. After a compaction, the summary equals its rebuild from the lines.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections import defaultdict
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, text, update

from unionflow.comptabilite import soldes_sql
from unionflow.comptabilite.etats.repository import EtatsRepository, SoldeCompte
from unionflow.comptabilite.soldes_repository import reconstruire
from unionflow.core.resume import compacter
from unionflow.models import (
    CompteComptable,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    SoldeCompteMois,
    SoldeCompteMoisDelta,
)

# First days, middles and last days of months, across a year end.
JOURS = (date(2025, 12, 31), date(2026, 1, 1), date(2026, 2, 14), date(2026, 2, 28), date(2026, 3, 1),
         date(2026, 3, 15), date(2026, 3, 31), date(2026, 4, 30), date(2026, 5, 1))
COMPTES = ("521000", "571000", "706100", "658000")
ZERO = Decimal("0.00")
# Entry numbers are unique per (journal, year): every entry of the module gets its own.
SEQUENCES = itertools.count(1)

jour = st.integers(0, len(JOURS) - 1)
ajout = st.tuples(st.just("ajout"), st.integers(0, 1), st.integers(0, len(COMPTES) - 1), st.booleans(), jour,
                  st.integers(1, 5000), st.booleans())
cible = st.integers(0, 30)
operation = st.one_of(
    ajout, ajout,
    st.tuples(st.just("supprimer_ecriture"), cible),
    st.tuples(st.just("supprimer_ligne"), cible),
    st.tuples(st.just("modifier_ligne"), cible, st.integers(1, 5000), st.integers(0, len(COMPTES) - 1)),
    st.tuples(st.just("deplacer_ecriture"), cible, jour, st.booleans()),
    st.tuples(st.just("compacter")))
periode = st.tuples(st.one_of(st.none(), jour), jour)


class Grand:
    """The two organisations' accounts and journals, and the writes of one drawn sequence, all in SQL."""

    def __init__(self, db, orgs, comptes, journaux):
        self.db, self.orgs, self.comptes, self.journaux = db, orgs, comptes, journaux

    async def _ids(self, model):
        """This sequence's rows (the session holds the earlier examples' too)."""
        stmt = select(model.id).order_by(model.id)
        if model is LigneEcriture:
            stmt = stmt.join(EcritureComptable)
        return list((await self.db.execute(stmt.where(EcritureComptable.organisation_id.in_(self.orgs)))).scalars())

    async def appliquer(self, op) -> None:
        db, kind = self.db, op[0]
        if kind == "ajout":
            _, o, c, cloture, j, montant, deux = op
            e = uuid.uuid4()
            await db.execute(insert(EcritureComptable).values(
                id=e, organisation_id=self.orgs[o], journal_id=self.journaux[o, cloture],
                numero_piece=f"P-{e.hex[:8]}", annee=JOURS[j].year, sequence=next(SEQUENCES),
                date_ecriture=JOURS[j], libelle="Pièce", montant_total=Decimal(montant)))
            lignes = [(c, Decimal(montant), ZERO)]
            if deux:
                lignes.append(((c + 1) % len(COMPTES), ZERO, Decimal(montant)))
            # One statement for the entry's lines, as the ORM's batched insert.
            await db.execute(insert(LigneEcriture), [
                {"id": uuid.uuid4(), "ecriture_id": e, "compte_id": self.comptes[o, k], "ordre": n, "debit": d,
                 "credit": cr} for n, (k, d, cr) in enumerate(lignes)])
        elif kind == "compacter":
            await compacter(db, soldes_sql.RESUME)
        elif kind in ("supprimer_ecriture", "deplacer_ecriture"):
            ids = await self._ids(EcritureComptable)
            if not ids:
                return
            e = ids[op[1] % len(ids)]
            if kind == "supprimer_ecriture":
                await db.execute(delete(EcritureComptable).where(EcritureComptable.id == e))
                return
            org = (await db.execute(select(EcritureComptable.organisation_id)
                                    .where(EcritureComptable.id == e))).scalar_one()
            o = self.orgs.index(org)
            await db.execute(update(EcritureComptable).where(EcritureComptable.id == e).values(
                date_ecriture=JOURS[op[2]], journal_id=self.journaux[o, op[3]]))
        else:
            ids = await self._ids(LigneEcriture)
            if not ids:
                return
            ligne = ids[op[1] % len(ids)]
            if kind == "supprimer_ligne":
                await db.execute(delete(LigneEcriture).where(LigneEcriture.id == ligne))
                return
            row = (await db.execute(select(LigneEcriture.debit, EcritureComptable.organisation_id)
                                    .join(EcritureComptable).where(LigneEcriture.id == ligne))).one()
            montant = Decimal(op[2])
            sens = {"debit": montant, "credit": ZERO} if row[0] else {"debit": ZERO, "credit": montant}
            await db.execute(update(LigneEcriture).where(LigneEcriture.id == ligne).values(
                compte_id=self.comptes[self.orgs.index(row[1]), op[3]], **sens))

    async def attendu(self, debut, fin, *, sans_cloture=False, classe=None) -> dict:
        """``soldes_organisations`` computed in Python from the lines."""
        rows = (await self.db.execute(
            select(EcritureComptable.organisation_id, CompteComptable.id, CompteComptable.numero_compte,
                   CompteComptable.libelle, CompteComptable.classe, JournalComptable.type_journal,
                   EcritureComptable.date_ecriture, LigneEcriture.debit, LigneEcriture.credit)
            .select_from(LigneEcriture).join(EcritureComptable).join(CompteComptable)
            .join(JournalComptable, JournalComptable.id == EcritureComptable.journal_id)
            .where(EcritureComptable.organisation_id.in_(self.orgs)))).all()
        sommes: dict = defaultdict(lambda: [ZERO] * 4)
        for org, cid, numero, libelle, cl, type_journal, jour_, debit, credit in rows:
            if jour_ > fin or (sans_cloture and type_journal == "CLOTURE") or (classe and cl != classe):
                continue
            s = sommes[org, (cid, numero, libelle, cl)]
            k = 0 if debut is not None and jour_ < debut else 2
            s[k] += Decimal(debit)
            s[k + 1] += Decimal(credit)
        result: dict = defaultdict(list)
        for (org, compte), s in sorted(sommes.items(), key=lambda kv: (str(kv[0][0]), kv[0][1][1])):
            result[org].append(SoldeCompte(*compte, *(v.quantize(Decimal("0.01")) for v in s)))
        return dict(result)


async def _grand(factory, db) -> Grand:
    orgs = [await factory.organisation(), await factory.organisation()]
    comptes, journaux = {}, {}
    for o, org in enumerate(orgs):
        for c, numero in enumerate(COMPTES):
            comptes[o, c] = CompteComptable(organisation_id=org.id, numero_compte=numero,
                                            libelle=f"Compte {numero}", classe=int(numero[0]), type_compte="AUTRE")
        for cloture in (False, True):
            journaux[o, cloture] = JournalComptable(organisation_id=org.id, code="CL" if cloture else "OD",
                                                    libelle="Journal", type_journal="CLOTURE" if cloture else "OD")
    db.add_all([*comptes.values(), *journaux.values()])
    await db.flush()
    return Grand(db, [o.id for o in orgs], {k: v.id for k, v in comptes.items()},
                 {k: v.id for k, v in journaux.items()})


def _par_org(soldes: dict) -> dict:
    return {org: sorted(lignes, key=lambda s: s.numero) for org, lignes in soldes.items()}


@settings(max_examples=30, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(operations=st.lists(operation, max_size=16), periodes=st.lists(periode, min_size=1, max_size=3))
async def test_balances_from_the_summary_equal_the_lines(factory, db, operations, periodes):
    grand = await _grand(factory, db)
    for op in operations:
        await grand.appliquer(op)
    note(f"operations {operations}")
    repo = EtatsRepository(db)
    for d, f in periodes:
        debut, fin = (JOURS[d] if d is not None else None), JOURS[f]
        note(f"période {debut} → {fin}")
        periode_ = await grand.attendu(debut, fin)
        assert _par_org(await repo.soldes_organisations(grand.orgs, debut, fin)) == periode_
        hors = await grand.attendu(debut, fin, sans_cloture=True)
        assert _par_org(await repo.soldes_organisations(grand.orgs, debut, fin, sans_cloture=True)) == hors
        assert (_par_org(await repo.soldes_organisations(grand.orgs, None, fin, classe=5))
                == await grand.attendu(None, fin, classe=5))
        if debut is not None:
            # « Encaissé » (etats/encaisse.py): credits and debits of the period per account number, closing aside.
            numeros = set(COMPTES)
            mouvements = {o: {s.numero: (s.credit_periode, s.debit_periode) for s in soldes}
                          for o, soldes in hors.items()}
            lus = await repo.mouvements_produits_organisations(grand.orgs, numeros, debut, fin)
            assert _non_nuls(lus) == _non_nuls(mouvements)
            cumul = {o: [SoldeCompte(s.compte_id, s.numero, s.libelle, s.classe, ZERO, ZERO,
                                     s.debit_avant + s.debit_periode, s.credit_avant + s.credit_periode)
                         for s in soldes] for o, soldes in periode_.items()}
            assert tuple(map(_par_org, await repo.soldes_consolides(grand.orgs, debut, fin))) == (periode_, hors,
                                                                                                  cumul)
    # Compacted, the summary is what a rebuild computes from the lines, and no delta is left.
    await compacter(db, soldes_sql.RESUME)
    compacte = await _contenu(db)
    assert (await db.execute(select(SoldeCompteMoisDelta.id))).first() is None
    await reconstruire(db)
    assert compacte == await _contenu(db)


def _non_nuls(par_org: dict) -> dict:
    """Accounts that moved in the period, organisations with one."""
    gardes = {o: {n: v for n, v in m.items() if v != (ZERO, ZERO)} for o, m in par_org.items()}
    return {o: m for o, m in gardes.items() if m}


async def _contenu(db) -> set:
    t = SoldeCompteMois
    return {(r[0], r[1], r[2], r[3], r[4], Decimal(r[5]), Decimal(r[6])) for r in (await db.execute(
        select(t.organisation_id, t.compte_id, t.journal_id, t.mois, t.nombre, t.debit, t.credit))).all()}


async def test_the_triggers_exist_at_head(db):
    dialect = db.get_bind().dialect.name
    if dialect == "postgresql":
        names = set((await db.execute(text("SELECT tgname FROM pg_trigger"))).scalars())
        expected = {t[0] for t in soldes_sql.PG_TRIGGERS} | {soldes_sql.PG_ROW_TRIGGER}
    else:
        names = set((await db.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))).scalars())
        expected = set(soldes_sql.SQLITE_TRIGGERS)
    assert expected <= names


async def test_two_payments_of_one_account_and_month_never_wait_for_each_other(app, committed_db, committed_factory):
    """Concurrent entries on the same account, journal and month only append their own deltas: the second
    writer does not wait for the first to commit (a shared summary row would make it)."""
    if committed_db.get_bind().dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers: no two transactions write at once")
    grand = await _grand(committed_factory, committed_db)
    await committed_db.commit()

    def entree(conn):
        e = uuid.uuid4()
        return [insert(EcritureComptable).values(
                    id=e, organisation_id=grand.orgs[0], journal_id=grand.journaux[0, False],
                    numero_piece=f"P-{e.hex[:8]}", annee=2026, sequence=next(SEQUENCES),
                    date_ecriture=date(2026, 3, 15), libelle="Paiement", montant_total=Decimal(100)),
                insert(LigneEcriture).values(id=uuid.uuid4(), ecriture_id=e, compte_id=grand.comptes[0, 0], ordre=0,
                                             debit=Decimal(100), credit=ZERO)]

    async with app.state.engine.connect() as one, app.state.engine.connect() as two:
        await one.begin()
        await two.begin()
        for stmt in entree(one):
            await one.execute(stmt)
        second = asyncio.create_task(_executer(two, entree(two)))
        await asyncio.wait_for(second, timeout=5)
        await two.commit()
        await one.commit()
    soldes = await EtatsRepository(committed_db).soldes_organisations(grand.orgs[:1], None, date(2026, 3, 31))
    assert [(s.numero, s.debit_periode) for s in soldes[grand.orgs[0]]] == [("521000", Decimal("200.00"))]


async def _executer(conn, statements) -> None:
    for stmt in statements:
        await conn.execute(stmt)
