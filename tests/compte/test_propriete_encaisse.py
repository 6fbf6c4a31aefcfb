"""Property (issue 28 item 7): every « cotisations encaissées » is the credits of the dues income accounts over its
period, and today ≤ this month ≤ this year.

Random sequences over several dates (today, yesterday, the 1st of the month, the last day of the month before, the
1st of January, a day of the year before): dues paid on a date, some with more than due (the rest is the member's
credit), credit applied now to new dues, donations, payments undone now (request, then a second person's
approval; refused once their credit served). Then:
(a) the dashboard's today / month / year = the trial balance's credit column of 7061/7063/7064 over the same
    periods = what the sequence says (each payment's dues part on its date, each credit applied today; never a
    donation nor an advance; an undone payment stays collected on its date), and the month's undoing is shown
    beside (the balance's debit column);
(b) the consolidation over a random period = the trial balance's credits over that period = the sequence's;
(c) today ≤ month ≤ year.
Through the real app. No shrinking (each step is HTTP); a failing example is printed with its steps (``note``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from tests.compte.encaisse_helpers import (
    annuler,
    avoir,
    consolidation,
    credits_balance,
    imputer,
    instant,
    payer,
    tableau,
)
from tests.factories.cotisations import cotisation

ZERO = Decimal(0)
PROPERTY = settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
step = st.one_of(
    st.tuples(st.just("payer"), st.integers(0, 5), st.integers(1, 50), st.integers(0, 30)),
    st.tuples(st.just("imputer"), st.just(0), st.integers(1, 50), st.just(0)),
    st.tuples(st.just("don"), st.integers(0, 5), st.integers(1, 20), st.just(0)),
    st.tuples(st.just("annuler"), st.integers(0, 9), st.just(0), st.just(0)),
)


def _dates(today: date) -> list[date]:
    debut_mois = today.replace(day=1)
    return [today, today - timedelta(days=1), debut_mois, debut_mois - timedelta(days=1), date(today.year, 1, 1),
            date(today.year - 1, 6, 15)]


def _sum(credits: list[tuple[date, Decimal]], debut: date, fin: date) -> Decimal:
    return sum((m for d, m in credits if debut <= d <= fin), ZERO)


@PROPERTY
# Undone, then the credit of a payment of last month applied to its reopened dues, then that payment's undoing
# refused (its credit served).
@example(steps=[("payer", 0, 30, 10), ("annuler", 0, 0, 0), ("payer", 3, 20, 5), ("imputer", 0, 10, 0),
                ("annuler", 0, 0, 0)], bornes=(3, 0))
@given(steps=st.lists(step, min_size=1, max_size=9), bornes=st.tuples(st.integers(0, 5), st.integers(0, 5)))
async def test_every_collected_figure_is_the_income_accounts_credits_of_its_period(client, factory, db, steps,
                                                                                  bornes):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    today = datetime.now(UTC).date()
    dates = _dates(today)
    credits: list[tuple[date, Decimal]] = []  # (entry date, dues income credited): the model
    extournes = ZERO  # dues income debited today by the undoing of a payment
    paiements: list[tuple[str, Decimal]] = []  # (id, dues part) of the payments still valid
    ouvert = ZERO  # open dues the credit may pay
    for kind, i, montant, extra in steps:
        jour, somme = dates[i % len(dates)], Decimal(montant * 100)
        if kind == "payer":
            paid = await payer(client, db, org, tresorier, membre, montant * 100 + extra * 100, montant * 100, jour)
            credits.append((jour, somme))
            paiements.append((paid["id"], somme))
        elif kind == "imputer":
            await cotisation(db, membre.membre, org, somme)
            solde, ouvert = await avoir(client, org, tresorier, membre), ouvert + somme
            applique = await imputer(client, org, tresorier, membre)
            assert applique == min(solde, ouvert), (applique, solde, ouvert)
            credits.append((today, applique))
            ouvert -= applique
        elif kind == "annuler" and paiements:
            paiement_id, part = paiements[i % len(paiements)]
            if await annuler(client, paiement_id, tresorier, president):
                paiements.remove((paiement_id, part))
                extournes += part
                ouvert += part  # its dues are open again
        elif kind == "don":
            don = await client.post("/api/paiements/recettes", headers=tresorier.headers, json={
                "nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id),
                "montant": str(somme), "methode": "ESPECES", "datePaiement": instant(jour, 9).isoformat()})
            assert don.status_code == 201, don.text
        note(f"{kind} {jour} {somme} (+{extra * 100}) -> extourné {extournes}, ouvert {ouvert}")

    # (a) the dashboard's three figures: the books' credits of the same periods, and the sequence's.
    board = await tableau(client, org, tresorier)
    periodes = {"encaisseCotisationsJour": (today, today),
                "encaisseCotisationsMois": (today.replace(day=1), today),
                "encaisseCotisationsAnnee": (date(today.year, 1, 1), today)}
    for champ, (debut, fin) in periodes.items():
        livres = await credits_balance(client, org, tresorier, debut, fin)
        assert board[champ] == livres == _sum(credits, debut, fin), (champ, board[champ], livres)
    # Undoing is shown beside, never taken off: the month's debits of the same accounts.
    debits = await credits_balance(client, org, tresorier, today.replace(day=1), today, "debitPeriode")
    assert board["cotisationsExtourneesMois"] == debits == extournes
    # (b) any period on the federation page.
    debut, fin = sorted((dates[bornes[0]], dates[bornes[1]]))
    livres = await credits_balance(client, org, tresorier, debut, fin)
    assert await consolidation(client, org, tresorier, debut, fin) == livres == _sum(credits, debut, fin)
    # (c) nested periods.
    assert board["encaisseCotisationsJour"] <= board["encaisseCotisationsMois"] <= board["encaisseCotisationsAnnee"]
