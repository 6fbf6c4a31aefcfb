"""Property (issue 19): over random sequences of payments, cancellation and refund requests, approvals and
rejections by random people of the bureau (two treasurers and a president), after every step:
- nothing is undone by one person: every cancelled or refunded payment has an approved request whose approver is
  neither its requester nor the person who recorded the payment, and a pending request has moved nothing;
- books = treasury = receipts: the ledger's treasury balance equals the sum of the validated payments;
- refund receipt numbers are unique and only on approved refunds.
No shrinking (each step is an HTTP request); Hypothesis prints the failing scenario in full as drawn."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from unionflow.models import CompteComptable, DemandeApprobation, LigneEcriture, Paiement
from unionflow.models.annulation import VueAnnulation

EXAMPLES = 12
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
person = st.integers(0, 2)  # 0, 1: treasurers; 2: president
step = st.one_of(
    st.tuples(st.just("payer"), person, st.integers(0, 3)),
    st.tuples(st.just("annuler"), person, st.integers(0, 9)),
    st.tuples(st.just("rembourser"), person, st.integers(0, 9)),
    st.tuples(st.just("approuver"), person, st.integers(0, 9)),
    st.tuples(st.just("rejeter"), person, st.integers(0, 9)),
)
scenario = st.lists(step, min_size=3, max_size=14)


async def _check(db, org_id) -> None:
    payments = {p.id: p for p in (await db.execute(select(Paiement).where(
        Paiement.organisation_id == org_id).execution_options(populate_existing=True))).scalars()}
    demandes = [VueAnnulation(d) for d in (await db.execute(select(DemandeApprobation).where(
        DemandeApprobation.organisation_id == org_id, DemandeApprobation.genre == "ANNULATION")
        .execution_options(populate_existing=True))).scalars()]
    for p in payments.values():
        if p.statut in {"ANNULE", "REMBOURSE"}:
            approved = [d for d in demandes if d.paiement_id == p.id and d.statut == "APPROUVEE"]
            assert len(approved) == 1, p.numero_recu
            d = approved[0]
            assert d.decide_par_sub != d.demande_par_sub and d.decide_par != p.enregistre_par, p.numero_recu
            assert (d.type_annulation == "REMBOURSEMENT_PAIEMENT") == (p.statut == "REMBOURSE")
    for d in demandes:
        if d.statut != "APPROUVEE":
            assert d.numero_remboursement is None
        # A pending request is on money still valid. A rejected or withdrawn one may sit on a payment that a later
        # request, approved, undid: only the pending ones say anything about the payment's status now.
        if d.statut == "EN_ATTENTE":
            assert payments[d.paiement_id].statut == "VALIDE", d.id
    numbers = [d.numero_remboursement for d in demandes if d.numero_remboursement]
    assert len(numbers) == len(set(numbers))
    validated = sum((p.montant for p in payments.values() if p.statut == "VALIDE"), Decimal(0))
    debit, credit = (await db.execute(
        select(func.coalesce(func.sum(LigneEcriture.debit), 0), func.coalesce(func.sum(LigneEcriture.credit), 0))
        .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
        .where(CompteComptable.organisation_id == org_id, CompteComptable.numero_compte.like("5%")))).one()
    assert Decimal(debit) - Decimal(credit) == validated


@PROPERTY
@given(steps=scenario)
# Found by the search (about 1 run in 3 drew it): a refund rejected, then a cancellation of the same payment approved;
# the rejected request stays on a payment no longer valid, which is right.
@example(steps=[("payer", 1, 2), ("rembourser", 1, 1), ("rembourser", 2, 4), ("approuver", 1, 3), ("rejeter", 1, 8),
                ("rembourser", 1, 7), ("rejeter", 0, 5), ("payer", 2, 3), ("annuler", 0, 7), ("approuver", 2, 0),
                ("rejeter", 2, 4), ("approuver", 2, 5), ("payer", 2, 1), ("rejeter", 2, 7)])
async def test_nothing_undone_by_one_person_and_books_agree(client, factory, db, steps):
    org = await factory.organisation()
    people = [await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", role])
              for role in ("TRESORIER", "TRESORIER", "PRESIDENT")]
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = [await cotisation(db, member.membre, org, 1000 * (i + 1)) for i in range(4)]
    paid: list[str] = []
    asked: list[str] = []
    for kind, who, index in steps:
        headers = people[who].headers
        if kind == "payer":
            response = await client.post("/api/paiements", headers=headers, json={
                "membreId": str(member.membre.id), "organisationId": str(org.id),
                "montant": str(1000 * (index + 1)), "methode": "ESPECES",
                "cibles": [{"cotisationId": str(dues[index].id)}]})
            if response.status_code == 201:
                paid.append(response.json()["id"])
        elif kind in {"annuler", "rembourser"}:
            if not paid:
                continue
            response = await client.post(f"/api/paiements/{paid[index % len(paid)]}/{kind}", headers=headers,
                                         json={"motif": f"Propriété {kind}"})
            if response.status_code == 202:
                asked.append(response.json()["id"])
        else:
            if not asked:
                continue
            body = {"commentaire": "Décision de la propriété"}
            response = await client.post(f"/api/annulations/{asked[index % len(asked)]}/{kind}", headers=headers,
                                         json=body)
        assert response.status_code in {200, 201, 202, 400, 403, 409}, (kind, who, index, response.text)
        await _check(db, org.id)
