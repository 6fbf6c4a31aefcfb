"""Property: every number of every organisation's receipt series is used once, by a receipt that is valid or
cancelled, with no gap and no reuse (issue 19, items 4 and 5).

Hypothesis draws a sequence of operations over two organisations: cash payments at the counter, payments
refused (more than owed), declarations by the member, their confirmation or rejection by the treasurer, and
transactions that take a receipt number and roll back. Afterwards, per organisation: the receipts are exactly
REC-<code>-<year>-000001…n (its counter says n), every declaration not confirmed keeps its DEC- reference and
no receipt number, and no reference appears twice. On both databases (requests run in savepoints of the test's
transaction; a rolled-back savepoint is a rolled-back payment). A failing example is printed as drawn, with
the answers of every step (``note``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from hypothesis import HealthCheck, Phase, event, example, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.core.numbering import next_values
from unionflow.models import Compteur, Cotisation, Organisation, Paiement
from unionflow.paiements.recus.numerotation import compteur_recus

EXAMPLES = 25
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

org_index = st.integers(0, 1)
dues_index = st.integers(0, 2)
operation = st.one_of(
    st.tuples(st.just("especes"), org_index, dues_index),
    st.tuples(st.just("trop"), org_index, dues_index),
    st.tuples(st.just("declarer"), org_index, dues_index),
    st.tuples(st.just("confirmer"), org_index, st.integers(0, 1)),
    st.tuples(st.just("rejeter"), org_index, st.integers(0, 1)),
    st.tuples(st.just("avortee"), org_index, st.just(0)),
)


@dataclass
class Org:
    org: Organisation
    treasurer: object
    member: object
    dues: list[Cotisation]
    declarations: list[str] = field(default_factory=list)


async def _org(factory, db, nom_court: str) -> Org:
    org = await factory.organisation(nom_court=nom_court)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["MEMBRE"], organisation=org)
    dues = [await cotisation(db, member.membre, org, 1000 * (i + 1)) for i in range(3)]
    return Org(org, treasurer, member, dues)


async def _run(client, db, world: Org, op: tuple[str, int, int]) -> str:
    kind, _, n = op
    if kind in ("especes", "trop"):
        dues = world.dues[n]
        montant = dues.montant_du * (2 if kind == "trop" else 1)
        answer = await client.post("/api/paiements", headers=world.treasurer.headers, json={
            "membreId": str(world.member.membre.id), "organisationId": str(world.org.id),
            "montant": str(montant), "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
        assert answer.status_code in {201, 400}, answer.text
        assert kind == "especes" or answer.status_code == 400, answer.text
        return f"{answer.status_code} {answer.json().get('numeroRecu', answer.json().get('detail'))}"
    if kind == "declarer":
        answer = await client.put(f"/api/cotisations/{world.dues[n].id}/payer", headers=world.member.headers,
                                  json={"montant": str(world.dues[n].montant_du)})
        assert answer.status_code in {200, 400, 409}, answer.text
        if answer.status_code == 200 and answer.json()["declaration"]:
            world.declarations.append(answer.json()["declaration"]["paiementId"])
            return f"200 {answer.json()['declaration']['referenceDeclaration']}"
        return f"{answer.status_code}"
    if kind in ("confirmer", "rejeter"):
        if not world.declarations:
            return "rien"
        body = {"motif": "Aucun versement constaté"} if kind == "rejeter" else {}
        target = world.declarations[n % len(world.declarations)]
        answer = await client.post(f"/api/paiements/{target}/{kind}",
                                   headers=world.treasurer.headers, json=body)
        assert answer.status_code in {200, 400}, answer.text
        return f"{answer.status_code} {answer.json().get('numeroRecu', answer.json().get('detail'))}"
    # A payment's transaction that took the organisation's next number, then rolled back.
    async with db.begin_nested() as savepoint:
        taken = await next_values(db, compteur_recus(world.org.id, datetime.now(UTC).year))
        await savepoint.rollback()
    return f"annulée après avoir pris {taken}"


async def _check(db, world: Org) -> None:
    year = datetime.now(UTC).year
    code = (await db.execute(select(Organisation.code_serie).where(Organisation.id == world.org.id))).scalar_one()
    paiements = list((await db.execute(select(Paiement).where(Paiement.organisation_id == world.org.id)
                                       .execution_options(populate_existing=True))).scalars())
    receipts = sorted(p.numero_recu for p in paiements if p.a_un_recu)
    assert receipts == [f"REC-{code}-{year}-{n:06d}" for n in range(1, len(receipts) + 1)], receipts
    counter = (await db.execute(select(Compteur.valeur).where(
        Compteur.nom == compteur_recus(world.org.id, year)))).scalar_one_or_none()
    assert (counter or 0) == len(receipts), (counter, receipts)
    for p in paiements:
        if p.a_un_recu:
            assert p.statut in {"VALIDE", "ANNULE", "REMBOURSE"} and p.recu_par, (p.numero_recu, p.statut)
        else:
            # Pending or rejected declaration: its own reference, never a receipt.
            assert p.statut in {"EN_ATTENTE", "ANNULE"} and p.numero_recu.startswith(f"DEC-{year}-"), p.numero_recu
            assert p.recu_par is None, p.numero_recu
    references = [p.numero_recu for p in paiements] + [p.reference_declaration for p in paiements
                                                        if p.reference_declaration and p.a_un_recu]
    assert len(references) == len(set(references)), references


@PROPERTY
@given(operations=st.lists(st.tuples(operation), min_size=4, max_size=14))
# The paths every run must take at least once, whatever is drawn: a declaration confirmed between two cash
# payments, one rejected, a rolled-back numbering, in both organisations.
@example(operations=[(("especes", 0, 0),), (("declarer", 0, 1),), (("avortee", 0, 0),), (("confirmer", 0, 0),),
                     (("declarer", 1, 2),), (("rejeter", 1, 0),), (("especes", 1, 2),), (("especes", 0, 2),)])
async def test_every_number_of_every_series_is_used_once_without_gap(client, factory, db, operations):
    worlds = [await _org(factory, db, "PROPA"), await _org(factory, db, "PROPB")]
    for (op,) in operations:
        answer = await _run(client, db, worlds[op[1]], op)
        note(f"{op} -> {answer}")
        event(f"{op[0]} {answer.split(' ')[0]}")  # --hypothesis-show-statistics: which paths were taken
    for world in worlds:
        await _check(db, world)
