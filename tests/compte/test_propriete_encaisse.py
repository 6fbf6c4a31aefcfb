"""Property (issue 28 item 7): every « cotisations encaissées » is the credits of the dues income accounts over its
period, and today ≤ this month ≤ this year.

Random sequences over several dates (today, yesterday, the 1st of the month, the last day of the month before, the
1st of January, a day of the year before): dues paid on a date, some with more than due (the rest is the member's
credit), credit applied now to new dues, donations. Then:
(a) the dashboard's today / month / year = the trial balance's credit column of 7061/7063/7064 over the same
    periods = what the sequence says (each payment's dues part on its date, each credit applied today; never a
    donation nor an advance);
(b) the consolidation over a random period = the trial balance's credits over that period = the sequence's;
(c) today ≤ month ≤ year.
Through the real app. No shrinking (each step is HTTP); a failing example is printed with its steps (``note``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.compte.encaisse_helpers import consolidation, credits_balance, imputer, payer, tableau
from tests.paiements.helpers import cotisation

ZERO = Decimal(0)
PROPERTY = settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
step = st.one_of(
    st.tuples(st.just("payer"), st.integers(0, 5), st.integers(1, 50), st.integers(0, 30)),
    st.tuples(st.just("imputer"), st.just(0), st.integers(1, 50), st.just(0)),
    st.tuples(st.just("don"), st.integers(0, 5), st.integers(1, 20), st.just(0)),
)


def _dates(today: date) -> list[date]:
    debut_mois = today.replace(day=1)
    return [today, today - timedelta(days=1), debut_mois, debut_mois - timedelta(days=1), date(today.year, 1, 1),
            date(today.year - 1, 6, 15)]


def _sum(credits: list[tuple[date, Decimal]], debut: date, fin: date) -> Decimal:
    return sum((m for d, m in credits if debut <= d <= fin), ZERO)


@PROPERTY
@given(steps=st.lists(step, min_size=1, max_size=8), bornes=st.tuples(st.integers(0, 5), st.integers(0, 5)))
async def test_every_collected_figure_is_the_income_accounts_credits_of_its_period(client, factory, db, steps,
                                                                                  bornes):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    today = datetime.now(UTC).date()
    dates = _dates(today)
    credits: list[tuple[date, Decimal]] = []  # (entry date, dues income credited): the model
    avoir = ouvert = ZERO
    for kind, i, montant, extra in steps:
        jour, somme = dates[i], Decimal(montant * 100)
        if kind == "payer":
            await payer(client, db, org, tresorier, membre, montant * 100 + extra * 100, montant * 100, jour)
            credits.append((jour, somme))
            avoir += Decimal(extra * 100)
        elif kind == "imputer":
            await cotisation(db, membre.membre, org, somme)
            ouvert += somme
            applique = await imputer(client, org, tresorier, membre)
            assert applique == min(avoir, ouvert), (applique, avoir, ouvert)
            credits.append((today, applique))
            avoir, ouvert = avoir - applique, ouvert - applique
        else:
            don = await client.post("/api/paiements/recettes", headers=tresorier.headers, json={
                "nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id),
                "montant": str(somme), "methode": "ESPECES", "datePaiement": f"{jour}T09:00:00+00:00"})
            assert don.status_code == 201, don.text
        note(f"{kind} {jour} {somme} (+{extra * 100}) -> avoir {avoir}, ouvert {ouvert}")

    # (a) the dashboard's three figures: the books' credits of the same periods, and the sequence's.
    board = await tableau(client, org, tresorier)
    periodes = {"encaisseCotisationsJour": (today, today),
                "encaisseCotisationsMois": (today.replace(day=1), today),
                "encaisseCotisationsAnnee": (date(today.year, 1, 1), today)}
    for champ, (debut, fin) in periodes.items():
        livres = await credits_balance(client, org, tresorier, debut, fin)
        assert board[champ] == livres == _sum(credits, debut, fin), (champ, board[champ], livres)
    # (b) any period on the federation page.
    debut, fin = sorted((dates[bornes[0]], dates[bornes[1]]))
    livres = await credits_balance(client, org, tresorier, debut, fin)
    assert await consolidation(client, org, tresorier, debut, fin) == livres == _sum(credits, debut, fin)
    # (c) nested periods.
    assert board["encaisseCotisationsJour"] <= board["encaisseCotisationsMois"] <= board["encaisseCotisationsAnnee"]
