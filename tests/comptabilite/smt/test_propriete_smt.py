"""Property: over random payments, payouts and transfers across a cash box, a bank and Wave, each treasury
journal's closing running balance is that treasury's class-5 balance in the trial balance, and receipts − payments
is the change in total cash (class 5). Through the real app; no shrinking (each step is HTTP)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.factories.cotisations import cotisation
from tests.factories.tresoreries import declarer

PROPERTY = settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
COMPTES = ("571", "521", "5215")
METHODE = {0: "ESPECES", 1: "VIREMENT", 2: "WAVE"}
montant = st.integers(1, 40).map(lambda n: n * 500)
step = st.one_of(
    st.tuples(st.just("payer"), st.integers(0, 2), montant),
    st.tuples(st.just("verser"), st.integers(0, 2), montant),
    st.tuples(st.just("virer"), st.tuples(st.integers(0, 2), st.integers(0, 2)), montant),
)


async def _setup(client, factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    ids = []
    for body in (declarer(org, "CAISSE", "Caisse", "571", parDefaut=True), declarer(org, "BANQUE", "Banque", "521"),
                 declarer(org, "WAVE", "Wave", "5215")):
        made = await client.post("/api/tresoreries", headers=tresorier.headers, json=body)
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    return org, tresorier, president, membre, ids


async def _pas(client, db, org, tresorier, president, membre, ids, kind, arg, amount):
    if kind == "payer":
        dues = await cotisation(db, membre.membre, org, amount)
        body = {"membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": str(amount),
                "methode": METHODE[arg], "tresorerieId": ids[arg], "cibles": [{"cotisationId": str(dues.id)}]}
        if arg:
            body["referenceExterne"] = f"REF-{dues.id.hex[:10]}"
        return await client.post("/api/paiements", headers=tresorier.headers, json=body)
    if kind == "verser":
        body = {"organisationId": str(org.id), "montant": str(amount), "mode": "WAVE" if arg == 2 else "MANUEL",
                "objetType": "AUTRE", "motif": "Dépense", "beneficiaireNom": "Fournisseur", "tresorerieId": ids[arg]}
        if arg == 2:
            body["beneficiaireTelephone"] = "+221770000001"
        created = await client.post("/api/versements", headers=tresorier.headers, json=body)
        assert created.status_code == 201, created.text
        return await client.post(f"/api/versements/{created.json()['id']}/confirmer", headers=president.headers,
                                 json={"referenceExterne": "PIECE-1"} if arg != 2 else None)
    source, destination = arg
    return await client.post("/api/tresoreries/virements-internes", headers=tresorier.headers, json={
        "organisationId": str(org.id), "sourceId": ids[source], "destinationId": ids[destination],
        "montant": str(amount), "libelle": "Virement"})


@PROPERTY
@given(steps=st.lists(step, min_size=1, max_size=8))
async def test_journaux_et_recettes_depenses_tiennent_a_la_classe_5(client, factory, db, wave, steps):
    org, tresorier, president, membre, ids = await _setup(client, factory)
    for kind, arg, amount in steps:
        response = await _pas(client, db, org, tresorier, president, membre, ids, kind, arg, amount)
        note(f"{kind} {arg} {amount}: {response.status_code}")
    url = f"/api/comptabilite/etats/%s?organisationId={org.id}"
    balance = (await client.get(url % "balance", headers=tresorier.headers)).json()
    classe5 = {lg["numeroCompte"]: Decimal(lg["soldeDebiteur"]) - Decimal(lg["soldeCrediteur"])
               for lg in balance["lignes"] if lg["classe"] == 5}
    journaux = (await client.get(url % "smt/journal", headers=tresorier.headers)).json()["journaux"]
    assert {j["numeroCompte"] for j in journaux} >= set(COMPTES)
    for j in journaux:
        courant = Decimal(j["soldeOuverture"])
        for m in j["mouvements"]:
            courant += Decimal(m["entree"]) - Decimal(m["sortie"])
            assert Decimal(m["solde"]) == courant
        assert courant == Decimal(j["soldeCloture"]) == classe5.get(j["numeroCompte"], Decimal(0)), j
    rd = (await client.get(url % "smt/recettes-depenses", headers=tresorier.headers)).json()
    variation = Decimal(rd["tresorerieCloture"]) - Decimal(rd["tresorerieOuverture"])
    assert Decimal(rd["totalRecettes"]) - Decimal(rd["totalDepenses"]) == variation == sum(classe5.values(),
                                                                                            Decimal(0))
    situation = (await client.get(url % "smt/tresorerie", headers=tresorier.headers)).json()
    assert situation["concorde"] is True
