"""The consolidated statements' one pass over the ledger lines (``EtatsRepository.soldes_consolides``) returns
exactly the three ``soldes_organisations`` it replaces: the period's balance, the same without the closing journal
(an account whose lines are all closing entries absent), and the cumulative balance at the end. Property-tested
over random lines of two organisations, before, inside and after the period, in ordinary and closing journals."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from unionflow.comptabilite.etats.repository import EtatsRepository
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture

DEBUT, FIN = date(2026, 3, 1), date(2026, 5, 31)
JOURS = (date(2025, 12, 31), date(2026, 2, 28), DEBUT, date(2026, 4, 15), FIN, date(2026, 6, 1))
COMPTES = ("521000", "706100", "658000", "131000")
# (organisation, account, journal is the closing one, day, amount, on the debit side); a line has one side only
ligne = st.tuples(st.integers(0, 1), st.integers(0, len(COMPTES) - 1), st.booleans(),
                  st.integers(0, len(JOURS) - 1), st.integers(1, 5000), st.booleans())


@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lignes=st.lists(ligne, max_size=14))
async def test_one_pass_equals_the_three_balances_it_replaces(factory, db, lignes):
    orgs = [await factory.organisation(), await factory.organisation()]
    comptes, journaux = {}, {}
    for o, org in enumerate(orgs):
        for c, numero in enumerate(COMPTES):
            comptes[o, c] = CompteComptable(organisation_id=org.id, numero_compte=numero, libelle=f"Compte {numero}",
                                            classe=int(numero[0]), type_compte="AUTRE")
        for cloture in (False, True):
            journaux[o, cloture] = JournalComptable(organisation_id=org.id, code="CL" if cloture else "OD",
                                                    libelle="Journal", type_journal="CLOTURE" if cloture else "OD")
    db.add_all([*comptes.values(), *journaux.values()])
    await db.flush()
    for n, (o, c, cloture, jour, montant, au_debit) in enumerate(lignes):
        ecriture = EcritureComptable(organisation_id=orgs[o].id, journal_id=journaux[o, cloture].id,
                                     numero_piece=f"P-{n}-{uuid.uuid4().hex[:6]}", annee=JOURS[jour].year,
                                     sequence=n + 1, date_ecriture=JOURS[jour], libelle="Pièce",
                                     montant_total=Decimal(montant))
        db.add(ecriture)
        await db.flush()
        db.add(LigneEcriture(ecriture_id=ecriture.id, compte_id=comptes[o, c].id, ordre=1,
                             debit=Decimal(montant if au_debit else 0), credit=Decimal(0 if au_debit else montant)))
    await db.flush()
    note(f"lignes {lignes}")

    repo, ids = EtatsRepository(db), [o.id for o in orgs]
    attendus = (await repo.soldes_organisations(ids, DEBUT, FIN),
                await repo.soldes_organisations(ids, DEBUT, FIN, sans_cloture=True),
                await repo.soldes_organisations(ids, None, FIN))
    assert await repo.soldes_consolides(ids, DEBUT, FIN) == attendus
    # The consolidation's treasury: class 5 alone, as the unfiltered balance's class-5 rows.
    tresorerie = {o: [s for s in soldes if s.classe == 5] for o, soldes in attendus[2].items()}
    assert await repo.soldes_organisations(ids, None, FIN, classe=5) == {o: s for o, s in tresorerie.items() if s}
