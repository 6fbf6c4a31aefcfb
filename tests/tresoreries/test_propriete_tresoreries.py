"""Property (issue 20, "Tests"): over random payments, payouts, internal transfers and refunds across two cash boxes,
a bank (no overdraft) and Wave, after every step:
(a) books = treasury = receipts, per treasury: its class-5 balance in the books = Σ valid receipts that entered it
    − Σ delivered payouts that left it ± the transfers (what the model expects), and the list's `solde` says so;
(b) a cash box (and the bank, declared without overdraft) is never below zero: an operation that would make it so
    is refused (400) and changes nothing;
(c) 585 "Virements de fonds" is back to zero after every transfer.
Through the real app. No shrinking (each step is HTTP); a failing example is printed with every step's answer."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from tests.factories.tresoreries import declarer
from tests.livres import solde
from unionflow.models import Paiement, Versement

PROPERTY = settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Treasuries: 0 cash box A (571, default), 1 cash box B (5712), 2 bank (521, overdraft 0), 3 Wave (5215).
COMPTES = ("571", "5712", "521", "5215")
CONTROLEES = (0, 1, 2)
METHODE = {0: "ESPECES", 1: "ESPECES", 2: "VIREMENT", 3: "WAVE"}
montant = st.integers(1, 30).map(lambda n: n * 500)
step = st.one_of(
    st.tuples(st.just("payer"), st.integers(0, 3), montant),
    st.tuples(st.just("verser"), st.integers(0, 3), montant),
    st.tuples(st.just("virer"), st.tuples(st.integers(0, 3), st.integers(0, 3)), montant),
    st.tuples(st.just("rembourser"), st.integers(0, 20), st.just(0)),
)


async def _setup(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    bodies = (declarer(org, "CAISSE", "Caisse A", "571", parDefaut=True), declarer(org, "CAISSE", "Caisse B", "5712"),
              declarer(org, "BANQUE", "Banque", "521", decouvertAutorise="0"), declarer(org, "WAVE", "Wave", "5215"))
    ids = []
    for body in bodies:
        made = await client.post("/api/tresoreries", headers=treasurer.headers, json=body)
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    return org, treasurer, president, member, ids


async def _payer(client, db, org, treasurer, member, ids, t, amount):
    dues = await cotisation(db, member.membre, org, amount)
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": str(amount),
            "methode": METHODE[t], "tresorerieId": ids[t], "cibles": [{"cotisationId": str(dues.id)}]}
    if METHODE[t] != "ESPECES":
        body["referenceExterne"] = f"REF-{dues.id.hex[:10]}"
    return await client.post("/api/paiements", headers=treasurer.headers, json=body)


async def _verser(client, org, treasurer, president, ids, t, amount):
    body = {"organisationId": str(org.id), "montant": str(amount), "mode": "WAVE" if t == 3 else "MANUEL",
            "objetType": "AUTRE", "motif": "Dépense de la propriété", "beneficiaireNom": "Fournisseur",
            "tresorerieId": ids[t]}
    if t == 3:
        body["beneficiaireTelephone"] = "+221770000001"
    created = await client.post("/api/versements", headers=treasurer.headers, json=body)
    assert created.status_code == 201, created.text
    return await client.post(f"/api/versements/{created.json()['id']}/confirmer", headers=president.headers,
                             json={"referenceExterne": "PIECE-1"} if t != 3 else None)


async def _sommes(db, org, column, model, statut):
    rows = await db.execute(select(column, func.sum(model.montant)).where(
        model.organisation_id == org.id, model.statut == statut).group_by(column)
        .execution_options(populate_existing=True))
    return {str(k): Decimal(str(v)) for k, v in rows.all() if k is not None}


@PROPERTY
@given(steps=st.lists(step, min_size=1, max_size=10))
async def test_livres_tresorerie_recus_et_caisse_jamais_negative(client, factory, db, wave, steps):
    org, treasurer, president, member, ids = await _setup(client, factory, db)
    attendu = [Decimal("0")] * 4
    transferts = [Decimal("0")] * 4  # net of internal transfers per treasury
    payes: list[tuple[str, int, int]] = []  # (payment id, treasury, amount) still valid
    for kind, arg, amount in steps:
        before = list(attendu)
        if kind == "payer":
            response = await _payer(client, db, org, treasurer, member, ids, arg, amount)
            ok = True
            if response.status_code == 201:
                payes.append((response.json()["id"], arg, amount))
                attendu[arg] += amount
        elif kind == "verser":
            ok = arg not in CONTROLEES or attendu[arg] >= amount
            response = await _verser(client, org, treasurer, president, ids, arg, amount)
            if ok and response.status_code == 200:
                attendu[arg] -= amount
        elif kind == "virer":
            source, destination = arg
            ok = source != destination and (source not in CONTROLEES or attendu[source] >= amount)
            response = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers, json={
                "organisationId": str(org.id), "sourceId": ids[source], "destinationId": ids[destination],
                "montant": str(amount), "libelle": "Virement de la propriété"})
            if ok and response.status_code == 201:
                attendu[source] -= amount
                attendu[destination] += amount
                transferts[source] -= amount
                transferts[destination] += amount
        else:
            if not payes:
                continue
            paiement_id, t, paid = payes[arg % len(payes)]
            ok = t not in CONTROLEES or attendu[t] >= paid
            asked = await client.post(f"/api/paiements/{paiement_id}/rembourser", headers=treasurer.headers,
                                      json={"motif": "Remboursement de la propriété"})
            assert asked.status_code == 202, asked.text
            response = await client.post(f"/api/annulations/{asked.json()['id']}/approuver",
                                         headers=president.headers, json={})
            if ok and response.status_code == 200:
                payes.remove((paiement_id, t, paid))
                attendu[t] -= paid
            elif response.status_code != 200:
                await client.post(f"/api/annulations/{asked.json()['id']}/rejeter", headers=president.headers,
                                  json={"commentaire": "Refusé par la propriété"})
        note(f"{kind} {arg} {amount} -> {response.status_code} {response.text[:200]}; attendu {attendu}")
        expected_status = {"payer": 201, "verser": 200, "virer": 201, "rembourser": 200}[kind]
        assert (response.status_code == expected_status) == ok, (kind, arg, amount, response.text)
        if not ok:
            assert response.status_code == 400 and attendu == before
        # (a) books = treasury = receipts, per treasury.
        recus = await _sommes(db, org, Paiement.tresorerie_id, Paiement, "VALIDE")
        sorties = await _sommes(db, org, Versement.tresorerie_id, Versement, "REUSSI")
        listed = {t["id"]: Decimal(t["solde"]) for t in (await client.get(
            "/api/tresoreries", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
        for i, numero in enumerate(COMPTES):
            livres = await solde(db, org, numero)
            recettes = recus.get(ids[i], Decimal("0")) - sorties.get(ids[i], Decimal("0")) + transferts[i]
            assert livres == attendu[i] == recettes == listed[ids[i]], (numero, livres, attendu[i], recettes)
            # (b) never below zero where controlled.
            if i in CONTROLEES:
                assert livres >= 0, (numero, livres)
        assert await solde(db, org, "585") == 0  # (c)
