"""Property (issue 20, "Tests"): a member's credit (avoir) over random sequences of advances with or without
targets, overpayments, exact payments, applications of the credit, cancellations and refunds of payments, and
refunds of credit (each approved by a second person), by the treasurer. After every step, for the member and the
organisation:
(a) the credit is never negative: the ledger's sum, and each payment's unallocated amount;
(b) never both kept and applied: Σ credit movements = Σ unallocated amounts of valid payments = 4191 balance,
    and per payment its movements sum to what it still holds (0 once cancelled or refunded);
(c) every dues' paid amount = Σ allocations of valid payments, never above what it owes;
(d) books = receipts: treasury accounts (5x) = Σ valid payments − Σ credit paid back (no treasury movement on
    an application), and every valid payment = Σ its allocations + its unallocated amount + its credit paid back.
Through the real app; a failing example is printed with every step's answer (``note``)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, Phase, event, example, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from tests.paiements.test_avoir import solde_compte
from unionflow.models import CompteComptable, Cotisation, LigneEcriture, MouvementAvoir, Paiement, PaiementAllocation

PROPERTY = settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FRESH = {"populate_existing": True}
KINDS = ("avance", "avance_cible", "exact", "imputer", "annuler", "rembourser", "rendre_avoir")
step = st.tuples(st.sampled_from((*KINDS, "avance", "imputer")), st.integers(0, 9))


async def _verifier(db, org, membre) -> None:
    paiements = list((await db.execute(select(Paiement).where(Paiement.organisation_id == org.id)
                                       .execution_options(**FRESH))).scalars())
    mouvements = list((await db.execute(select(MouvementAvoir).where(
        MouvementAvoir.organisation_id == org.id, MouvementAvoir.membre_id == membre.id)
        .execution_options(**FRESH))).scalars())
    valides = [p for p in paiements if p.statut == "VALIDE"]
    solde = sum((m.montant for m in mouvements), Decimal(0))
    assert solde >= 0 and all(p.montant_non_affecte >= 0 for p in paiements), solde  # (a)
    tenu = sum((p.montant_non_affecte for p in valides), Decimal(0))
    assert solde == tenu == await solde_compte(db, org, "4191"), (solde, tenu)  # (b)
    for p in paiements:
        own = sum((m.montant for m in mouvements if m.paiement_id == p.id), Decimal(0))
        assert own == (p.montant_non_affecte if p.statut == "VALIDE" else 0), (p.numero_recu, p.statut, own)
    allocations = list((await db.execute(select(PaiementAllocation).join(
        Paiement, Paiement.id == PaiementAllocation.paiement_id).where(
        Paiement.organisation_id == org.id, Paiement.statut == "VALIDE"))).scalars())
    for dues in (await db.execute(select(Cotisation).where(Cotisation.organisation_id == org.id)
                                  .execution_options(**FRESH))).scalars():
        alloue = sum((a.montant for a in allocations if a.cotisation_id == dues.id), Decimal(0))
        assert dues.montant_paye == alloue <= dues.montant_du, (dues.numero_reference, dues.montant_paye, alloue)  # (c)
    rendu = {p.id: -sum((m.montant for m in mouvements if m.paiement_id == p.id
                         and m.type_mouvement == "REMBOURSEMENT"), Decimal(0)) for p in paiements}
    for p in valides:  # (d)
        assert p.montant == sum((a.montant for a in allocations if a.paiement_id == p.id),
                                Decimal(0)) + p.montant_non_affecte + rendu[p.id], p.numero_recu
    debit, credit = (await db.execute(
        select(func.coalesce(func.sum(LigneEcriture.debit), 0), func.coalesce(func.sum(LigneEcriture.credit), 0))
        .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
        .where(CompteComptable.organisation_id == org.id, CompteComptable.numero_compte.like("5%")))).one()
    assert Decimal(debit) - Decimal(credit) == sum((p.montant for p in valides), Decimal(0)) - sum(
        rendu.values(), Decimal(0)), (debit, credit)


async def _run(client, ctx, kind: str, n: int):
    org, treasurer, president, member, dues, paid = ctx
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "methode": "ESPECES"}
    target = dues[n % len(dues)]
    if kind == "avance":
        answer = await client.post("/api/paiements", headers=treasurer.headers, json={
            **body, "montant": str(500 * (n % 5 + 1)), "cibles": [], "avance": True})
    elif kind in ("avance_cible", "exact"):
        montant = target.montant_du + (700 if kind == "avance_cible" else 0)
        answer = await client.post("/api/paiements", headers=treasurer.headers, json={
            **body, "montant": str(montant), "cibles": [{"cotisationId": str(target.id)}],
            "avance": kind == "avance_cible"})
    elif kind == "rendre_avoir":
        demande = await client.post("/api/avoirs/rembourser", headers=treasurer.headers, json={
            "membreId": body["membreId"], "organisationId": body["organisationId"],
            "montant": str(300 * (n % 4 + 1)), "motif": "Remboursement demandé"})
        if demande.status_code != 202:
            return demande
        return await client.post(f"/api/annulations/{demande.json()['id']}/approuver",
                                 headers=president.headers, json={})
    elif kind == "imputer":
        return await client.post("/api/avoirs/imputer", headers=treasurer.headers,
                                 json={k: body[k] for k in ("membreId", "organisationId")})
    else:
        if not paid:
            return None
        action = "annuler" if kind == "annuler" else "rembourser"
        demande = await client.post(f"/api/paiements/{paid[n % len(paid)]}/{action}", headers=treasurer.headers,
                                    json={"motif": "Erreur de saisie"})
        if demande.status_code != 202:
            return demande
        return await client.post(f"/api/annulations/{demande.json()['id']}/approuver",
                                 headers=president.headers, json={})
    if answer.status_code == 201:
        paid.append(answer.json()["id"])
    return answer


@PROPERTY
@given(steps=st.lists(step, min_size=3, max_size=12))
@example(steps=[("avance", 3), ("avance_cible", 1), ("imputer", 0), ("annuler", 0), ("rembourser", 1),
                ("exact", 2), ("avance", 9), ("rendre_avoir", 1), ("annuler", 3), ("imputer", 0),
                ("rendre_avoir", 3)])
async def test_credit_never_negative_never_both_kept_and_applied(client, factory, db, steps):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    today = date.today()
    dues = [await cotisation(db, member.membre, org, 1000 * (i + 1), echeance=today + timedelta(days=10 * (2 - i)))
            for i in range(4)]
    ctx = (org, treasurer, president, member, dues, [])
    for kind, n in steps:
        answer = await _run(client, ctx, kind, n)
        code = answer.status_code if answer is not None else None
        note(f"{kind} n={n} -> {code} {answer.text[:300] if answer is not None else 'nothing to act on'}")
        event(f"{kind} {code}")
        if answer is not None:
            assert code in {200, 201, 202, 400, 409}, answer.text
        await _verifier(db, org, member.membre)
