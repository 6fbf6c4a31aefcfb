"""Property (issue 20, "Tests"): consolidated = Σ member organisations − eliminations.

Random trees under a federation (each new organisation hangs under the federation or under one drawn before it),
random payments in cash or by transfer, random quote-parts paid by an organisation to its parent — confirmed by a
second person or left pending, some cancelled after delivery (request, then approval). Then, for the federation:
(a) every account of the consolidated trial balance: cumulated = Σ of each organisation's own trial balance
    (GET /api/comptabilite/etats/balance), and consolidated = cumulated − eliminations, debit and credit;
(b) eliminations balance (Σ debits = Σ credits) and are exactly the delivered quote-parts (and their reversals):
    they net to zero on the result, and the consolidated result is Σ of the organisations' results; the
    consolidated balance sheet balances and its assets are Σ of the organisations' own bilans;
(c) the consolidated figures' total is Σ of the organisations' (members, dues collected, treasuries), and the
    consolidated treasury equals the trial balance's class 5.
Through the real app. No shrinking (each step is HTTP); a failing example is printed as drawn with every step's
answer (``note``)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.factories import Actor
from tests.factories.paiements import encaisser
from unionflow.models import Organisation

ZERO = Decimal("0")
PROPERTY = settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
step = st.one_of(
    st.tuples(st.just("payer"), st.integers(0, 9), st.integers(1, 50), st.sampled_from(("ESPECES", "VIREMENT"))),
    st.tuples(st.just("quote_part"), st.integers(0, 9), st.integers(1, 20), st.sampled_from(("confirmer",
                                                                                            "laisser", "annuler"))),
)


@dataclass
class Membre:
    org: Organisation
    tresorier: Actor
    admin: Actor
    president: Actor
    membre: Actor


async def _membre(factory: Any, org: Organisation) -> Membre:
    async def role(name: str | None) -> Actor:
        actor: Actor = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", *([name] if name else [])])
        return actor
    return Membre(org, await role("TRESORIER"), await role("ADMIN_ORGANISATION"), await role("PRESIDENT"),
                  await role(None))


async def _quote_part(client: Any, m: Membre, montant: int, suite: str) -> str:
    created = await client.post("/api/federations/quotes-parts", headers=m.tresorier.headers, json={
        "organisationId": str(m.org.id), "montant": str(montant * 100), "mode": "MANUEL", "motif": "Quote-part"})
    assert created.status_code == 201, created.text
    qp = created.json()
    if suite == "laisser":
        return "EN_COURS"
    done = await client.post(f"/api/versements/{qp['id']}/confirmer", headers=m.admin.headers,
                             json={"referenceExterne": "VIR-QP"})
    assert done.status_code == 200 and done.json()["statut"] == "REUSSI", done.text
    if suite == "annuler":
        asked = await client.post(f"/api/versements/{qp['id']}/annuler", headers=m.tresorier.headers,
                                  json={"motif": "Quote-part versée par erreur"})
        assert asked.status_code == 202, asked.text
        ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=m.president.headers,
                               json={})
        assert ok.status_code == 200, ok.text
        return "ANNULE"
    return "REUSSI"


def _d(value: str) -> Decimal:
    return Decimal(value)


@PROPERTY
@given(parents=st.lists(st.integers(0, 9), min_size=1, max_size=3), steps=st.lists(step, min_size=1, max_size=7))
async def test_consolidated_is_the_sum_of_organisations_minus_eliminations(client, factory, db, parents, steps):
    federation = await factory.organisation(type_organisation="FEDERATION")
    noeuds = [await _membre(factory, federation)]
    for p in parents:
        parent = noeuds[p % len(noeuds)].org
        noeuds.append(await _membre(factory, await factory.organisation(type_organisation="MUTUELLE",
                                                                         parent_id=parent.id)))
    index = {n.org.id: i for i, n in enumerate(noeuds)}
    note(f"arbre (organisation, parente): {[(i, index.get(m.org.parent_id)) for i, m in enumerate(noeuds)]}")
    delivered = ZERO
    for kind, i, montant, extra in steps:
        if kind == "payer":
            m = noeuds[i % len(noeuds)]
            await encaisser(client, db, m.org, m.tresorier, m.membre, str(montant * 100), extra)
            note(f"payer org={i % len(noeuds)} {montant * 100} {extra}")
        else:
            m = noeuds[1 + i % (len(noeuds) - 1)]  # the federation itself has no parent here
            statut = await _quote_part(client, m, montant, extra)
            note(f"quote-part org={1 + i % (len(noeuds) - 1)} {montant * 100} {extra} -> {statut}")
            delivered += Decimal(montant * 100) if statut == "REUSSI" else ZERO

    superadmin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    etats = await client.get(f"/api/federations/{federation.id}/etats-consolides", headers=superadmin.headers)
    assert etats.status_code == 200, etats.text
    body = etats.json()
    assert body["perimetre"] == [str(federation.id), *body["perimetre"][1:]]
    assert set(body["perimetre"]) == {str(n.org.id) for n in noeuds}

    # (a) per account: cumulated = Σ organisations' own balances; consolidated = cumulated − eliminations.
    somme: dict[str, list[Decimal]] = {}
    resultats = actifs = ZERO
    for n in noeuds:
        own = await client.get("/api/comptabilite/etats/balance", headers=superadmin.headers,
                               params={"organisationId": str(n.org.id)})
        assert own.status_code == 200, own.text
        for lg in own.json()["lignes"]:
            cumul = somme.setdefault(lg["numeroCompte"], [ZERO, ZERO])
            cumul[0] += _d(lg["debitPeriode"])
            cumul[1] += _d(lg["creditPeriode"])
        cr = (await client.get("/api/comptabilite/etats/compte-resultat", headers=superadmin.headers,
                               params={"organisationId": str(n.org.id)})).json()
        resultats += _d(cr["resultat"])
        bilan = (await client.get("/api/comptabilite/etats/bilan", headers=superadmin.headers,
                                  params={"organisationId": str(n.org.id)})).json()
        actifs += _d(bilan["totalActif"])
    lignes = {lg["numeroCompte"]: lg for lg in body["balance"]}
    assert set(lignes) == set(somme)
    for numero, lg in lignes.items():
        assert [_d(lg["debitCumule"]), _d(lg["creditCumule"])] == somme[numero], numero
        assert _d(lg["debitConsolide"]) == _d(lg["debitCumule"]) - _d(lg["debitEliminations"]), numero
        assert _d(lg["creditConsolide"]) == _d(lg["creditCumule"]) - _d(lg["creditEliminations"]), numero
        if lg["classe"] == 5:
            assert _d(lg["debitEliminations"]) == _d(lg["creditEliminations"]) == ZERO, numero

    # (b) eliminations balance, net to zero on the result, and are exactly what stays delivered.
    totaux = body["totauxBalance"]
    assert _d(totaux["debitEliminations"]) == _d(totaux["creditEliminations"])
    assert _d(totaux["debitConsolide"]) == _d(totaux["creditConsolide"])
    assert _d(body["resultat"]["eliminations"]) == ZERO
    assert _d(body["resultat"]["consolide"]) == _d(body["resultat"]["cumule"]) == resultats
    charge = lignes.get("6584")
    net = (_d(charge["debitEliminations"]) - _d(charge["creditEliminations"])) if charge else ZERO
    assert net == delivered
    if charge:
        assert _d(charge["debitConsolide"]) == _d(charge["creditConsolide"])  # nothing left between them

    # The balance sheet is Σ of the organisations' (nothing between them at the end: the quote-part is settled).
    assert body["bilan"]["equilibre"] and _d(body["bilan"]["totalActif"]) == actifs

    # (c) the figures' total is the sum of the organisations'; treasury = class 5 of the balance.
    figures = (await client.get(f"/api/federations/{federation.id}/consolidation",
                                headers=superadmin.headers)).json()
    orgs, total = figures["organisations"], figures["total"]
    assert total["membresActifs"] == sum(o["membresActifs"] for o in orgs) == 4 * len(noeuds)
    assert _d(total["cotisationsEncaissees"]) == sum((_d(o["cotisationsEncaissees"]) for o in orgs), ZERO)
    assert _d(total["tresorerieTotale"]) == sum((_d(o["tresorerieTotale"]) for o in orgs), ZERO) == sum(
        (_d(lg["debitConsolide"]) - _d(lg["creditConsolide"]) for lg in body["balance"] if lg["classe"] == 5), ZERO)
