"""Property (issue 19, "Tests"): the internal controls an auditor signs off hold over random sequences of
cash and transfer payments, member declarations, their confirmation or rejection, cancellation and refund requests
and their approval or rejection, payouts (prepare, confirm, cancel), lock moves (forward alone; back by a reopening
request and its approval), monthly closings and manual entries in past months — by random people (two treasurers,
president, organisation admin, member, auditor COMMISSAIRE_AUX_COMPTES) of TWO organisations. After every step,
per organisation:
(a) nothing is undone by one person: a cancelled/refunded payment, a cancelled delivered payout, an approved
    reopening each have an approved request whose approver is not its requester nor who recorded/confirmed the
    money (a reopening: another role too); the lock date only goes back on such an approval, never in the future;
(b) books = treasury = receipts: ledger treasury (5x) = Σ valid receipts − Σ delivered payouts;
(c) every series is gap-free, without reuse: receipts REC-<code>-<year>-1..n (its counter says n), declarations
    not confirmed keep their DEC reference and no receipt; refund receipts RMB-<code>-<year>-1..n only on approved
    refunds; entries 1..n per journal and year (its counter says n);
(d) a closed month's totals (debit, credit per account) never change while the lock covers it;
(e) the auditor and the member change nothing: their write attempts answer 403/404 and leave the state as it was
    (the member's declaration of his own dues excepted); nor does a treasurer acting on the other organisation.
Through the real app. No shrinking (each step is HTTP); a failing example is printed as drawn with every step's
answer (``note``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import HealthCheck, Phase, event, example, given, note, settings
from hypothesis import strategies as st

from tests.controles.etat import Monde, Org, etat, tresor, verifier
from tests.factories.comptabilite import compte, ecriture, journal
from tests.factories.cotisations import cotisation

EXAMPLES = 15
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TODAY = datetime.now(UTC).date()
FIN1 = TODAY.replace(day=1) - timedelta(days=1)  # end of last month
FIN2 = FIN1.replace(day=1) - timedelta(days=1)  # end of the month before
LOCKS = (FIN2, FIN1, TODAY - timedelta(days=1), TODAY, TODAY + timedelta(days=1))
ROLES = ("TRESORIER", "TRESORIER", "PRESIDENT", "ADMIN_ORGANISATION", None, "COMMISSAIRE_AUX_COMPTES")
MEMBRE, AUDITEUR, ETRANGER = 4, 5, 6  # 6: the other organisation's treasurer acting on this one
NAMES = (*ROLES[:4], "MEMBRE", ROLES[5], "TRESORIER de l'autre organisation")
KINDS = ("especes", "virement", "declarer", "confirmer", "rejeter", "annuler", "rembourser", "approuver",
         "refuser", "preparer", "envoyer", "annuler_versement", "verrouiller", "rouvrir", "decider_reouverture",
         "cloturer", "saisir", "don", "saisir_caisse", "decider_ecriture")
# ("declarer" by the treasury: PUT /api/cotisations/{id}/payer records the payment at the counter.)
MOUVEMENTS = {"especes", "virement", "don", "declarer", "confirmer", "envoyer", "approuver", "decider_ecriture"}
# Mostly the bureau (who can act), sometimes the member, the auditor or the other organisation's treasurer.
person = st.one_of(st.integers(0, 3), st.integers(0, 6))
# The steps that open paths for others (money in, a request, a lock or a closing) are drawn twice as often.
kind = st.sampled_from((*KINDS, "especes", "annuler", "rembourser", "approuver", "verrouiller", "cloturer"))
step = st.tuples(kind, st.integers(0, 1), person, st.integers(0, 9))


async def _org(client, factory, db) -> Org:
    org = await factory.organisation()
    people = [await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"] + ([role] if role else []))
              for role in ROLES]
    dues = [await cotisation(db, people[MEMBRE].membre, org, 1000 * (i + 1)) for i in range(4)]
    tresorier = people[0].headers
    od = await journal(client, tresorier, org.id, "OD", "OPERATIONS_DIVERSES")
    comptes = [(await compte(client, tresorier, org.id, n, libelle))["id"]
               for n, libelle in (("658", "Charges diverses"), ("7581", "Dons reçus"), ("571", "Caisse"))]
    world = Org(org=org, people=people, dues=dues, journal_id=od["id"], comptes=comptes)
    for fin in (FIN2, FIN1):  # each past month has figures of its own before it is closed
        assert (await _saisir(client, world, tresorier, fin)).status_code == 200
    return world


async def _saisir(client, w: Org, headers, fin: date):
    return await client.post("/api/comptabilite/ecritures", headers=headers, json=ecriture(
        w.journal_id, [(w.comptes[0], "500", "0"), (w.comptes[1], "0", "500")], fin.replace(day=10).isoformat()))


async def _ecriture_caisse(client, w: Org, headers, kind: str, n: int):
    """Issue 28: a cash expense typed by hand is a request; a second person decides it."""
    if kind == "saisir_caisse":
        answer = await client.post("/api/comptabilite/ecritures", headers=headers, json=ecriture(
            w.journal_id, [(w.comptes[0], str(1000 * (n % 3 + 1)), "0"), (w.comptes[2], "0", str(1000 * (n % 3 + 1)))],
            TODAY.isoformat()))
        if answer.status_code == 202:
            w.entries.append(answer.json()["id"])
        return answer
    target = _pick(w.entries, n)
    action, body = ("approuver", {}) if n % 3 else ("rejeter", {"commentaire": "Pas de pièce justificative"})
    return target and await client.post(f"/api/comptabilite/demandes-ecritures/{target}/{action}", headers=headers,
                                        json=body)


def _pick(items: list[str], n: int) -> str | None:
    return items[n % len(items)] if items else None


async def _payer(client, w: Org, headers, kind: str, n: int):
    dues = w.dues[n % len(w.dues)]
    body = {"membreId": str(w.people[MEMBRE].membre.id), "organisationId": str(w.org.id),
            "montant": str(dues.montant_du), "methode": "ESPECES" if kind == "especes" else "VIREMENT",
            "cibles": [{"cotisationId": str(dues.id)}]}
    if kind == "virement":
        body["referenceExterne"] = f"VIR-{n}"
    answer = await client.post("/api/paiements", headers=headers, json=body)
    if answer.status_code == 201:
        w.paid.append(answer.json()["id"])
    return answer


async def _declarer(client, w: Org, headers, n: int):
    dues = w.dues[n % len(w.dues)]
    answer = await client.put(f"/api/cotisations/{dues.id}/payer", headers=headers,
                              json={"montant": str(dues.montant_du), "methodePaiement": "ESPECES"})
    if answer.status_code == 200 and (answer.json().get("declaration") or {}).get("paiementId"):
        w.declared.append(answer.json()["declaration"]["paiementId"])
    return answer


async def _payout(client, w: Org, headers, kind: str, n: int):
    if kind == "preparer":
        answer = await client.post("/api/versements", headers=headers, json={
            "organisationId": str(w.org.id), "montant": str(1000 * (n % 3 + 1)), "mode": "MANUEL",
            "objetType": "COTISATIONS", "motif": "Reversement à la fédération", "beneficiaireNom": "Fédération"})
        if answer.status_code == 201:
            w.payouts.append(answer.json()["id"])
        return answer
    target = _pick(w.payouts, n)
    if target is None:
        return None
    if kind == "envoyer":
        return await client.post(f"/api/versements/{target}/confirmer", headers=headers,
                                 json={"referenceExterne": f"VIR-OUT-{n}"})
    answer = await client.post(f"/api/versements/{target}/annuler", headers=headers,
                               json={"motif": "Virement revenu"})
    if answer.status_code == 202:
        w.asked.append(answer.json()["id"])
    return answer


async def _lock(client, w: Org, headers, kind: str, n: int):
    if kind == "verrouiller":
        return await client.put("/api/comptabilite/verrouillage", headers=headers, json={
            "organisationId": str(w.org.id), "dateVerrouillage": LOCKS[n % len(LOCKS)].isoformat()})
    if kind == "rouvrir":
        answer = await client.post("/api/comptabilite/verrouillage/deverrouillages", headers=headers, json={
            "organisationId": str(w.org.id), "dateVerrouillage": LOCKS[n % 3].isoformat(),
            "motif": "Facture de septembre oubliée"})
        if answer.status_code == 201:
            w.reopenings.append(answer.json()["id"])
        return answer
    target = _pick(w.reopenings, n)
    if target is None:
        return None
    if n % 2:
        return await client.post(f"/api/comptabilite/verrouillage/deverrouillages/{target}/rejeter",
                                 headers=headers, json={"commentaire": "Pas de motif suffisant"})
    return await client.post(f"/api/comptabilite/verrouillage/deverrouillages/{target}/approuver",
                             headers=headers, json={})


async def _run(client, w: Org, headers, kind: str, n: int):
    if kind in ("especes", "virement"):
        return await _payer(client, w, headers, kind, n)
    if kind == "declarer":
        return await _declarer(client, w, headers, n)
    if kind == "don":  # issue 20: money in for no dues, undone like any payment
        answer = await client.post("/api/paiements/recettes", headers=headers, json={
            "nature": "DON", "membreId": str(w.people[MEMBRE].membre.id), "organisationId": str(w.org.id),
            "montant": str(1000 * (n % 3 + 1)), "methode": "ESPECES"})
        if answer.status_code == 201:
            w.paid.append(answer.json()["id"])
        return answer
    if kind in ("confirmer", "rejeter"):
        target = _pick(w.declared, n)
        body = {"motif": "Aucun versement constaté"} if kind == "rejeter" else {}
        return target and await client.post(f"/api/paiements/{target}/{kind}", headers=headers, json=body)
    if kind in ("annuler", "rembourser"):
        target = _pick(w.paid, n)
        answer = target and await client.post(f"/api/paiements/{target}/{kind}", headers=headers,
                                              json={"motif": f"Propriété {kind}"})
        if answer and answer.status_code == 202:
            w.asked.append(answer.json()["id"])
        return answer
    if kind in ("approuver", "refuser"):
        target = _pick(w.asked, n)
        action, body = ("approuver", {}) if kind == "approuver" else ("rejeter", {"commentaire": "Non fondé"})
        return target and await client.post(f"/api/annulations/{target}/{action}", headers=headers, json=body)
    if kind in ("preparer", "envoyer", "annuler_versement"):
        return await _payout(client, w, headers, kind, n)
    if kind in ("verrouiller", "rouvrir", "decider_reouverture"):
        return await _lock(client, w, headers, kind, n)
    if kind in ("saisir_caisse", "decider_ecriture"):
        return await _ecriture_caisse(client, w, headers, kind, n)
    fin = (FIN1, FIN2)[n % 2]
    if kind == "saisir":
        return await _saisir(client, w, headers, fin)
    return await client.post("/api/comptabilite/clotures-mensuelles", headers=headers, json={
        "organisationId": str(w.org.id), "annee": fin.year, "mois": fin.month, "caisseComptee": "0",
        "soldeBanque": "0", "soldeWave": "0"})


@PROPERTY
@given(steps=st.lists(step, min_size=4, max_size=15))
# Every kind of step at least once, in an order where most succeed: the bureau's month in organisation 0 (with
# the admin trying to move the lock back alone after the closings), the auditor and the member trying to write in
# organisation 1, the requester and the recorder trying to approve, each treasurer acting on the other one.
@example(steps=[("especes", 0, 0, 0), ("virement", 0, 1, 1), ("declarer", 0, 4, 2), ("confirmer", 0, 0, 0),
                ("declarer", 0, 4, 3), ("rejeter", 0, 1, 1), ("rembourser", 0, 0, 0), ("approuver", 0, 2, 0),
                ("annuler", 0, 1, 1), ("refuser", 0, 2, 1), ("preparer", 0, 0, 0), ("envoyer", 0, 1, 0),
                ("annuler_versement", 0, 0, 0), ("approuver", 0, 3, 2), ("cloturer", 0, 0, 1), ("cloturer", 0, 1, 0),
                ("saisir", 0, 0, 0), ("verrouiller", 0, 3, 0), ("verrouiller", 0, 0, 3), ("rouvrir", 0, 0, 1),
                ("decider_reouverture", 0, 2, 0), ("saisir", 0, 1, 0), ("especes", 1, 5, 0), ("especes", 1, 0, 0),
                ("annuler", 1, 4, 0), ("rembourser", 1, 1, 0), ("approuver", 1, 5, 0), ("approuver", 1, 4, 0),
                ("approuver", 1, 1, 0), ("approuver", 1, 0, 0), ("approuver", 1, 3, 0), ("verrouiller", 1, 5, 1),
                ("rouvrir", 1, 4, 0), ("cloturer", 1, 5, 0), ("saisir", 1, 4, 0), ("especes", 1, 6, 1),
                ("annuler", 0, 6, 0), ("approuver", 0, 6, 0), ("cloturer", 1, 6, 0), ("don", 1, 4, 0),
                ("don", 1, 0, 1), ("annuler", 1, 0, 2), ("approuver", 1, 2, 2), ("saisir_caisse", 1, 0, 0),
                ("decider_ecriture", 1, 0, 1), ("decider_ecriture", 1, 5, 1), ("decider_ecriture", 1, 2, 1),
                ("saisir_caisse", 1, 1, 2), ("decider_ecriture", 1, 3, 0)])
# A cash expense typed before any money came in, then approved: refused at once (no cash box under zero).
@example(steps=[("saisir_caisse", 0, 0, 2), ("decider_ecriture", 0, 2, 1), ("especes", 0, 0, 3),
                ("saisir_caisse", 0, 1, 0), ("decider_ecriture", 0, 3, 1)])
async def test_internal_controls_hold_after_every_step(client, factory, db, steps):
    monde = Monde(orgs=[await _org(client, factory, db), await _org(client, factory, db)])
    for w in monde.orgs:
        await verifier(db, w)
    for kind, o, who, n in steps:
        w = monde.orgs[o]
        before = [await etat(db, x) for x in monde.orgs]
        caisses = [await tresor(db, x.org.id) for x in monde.orgs]
        person = monde.orgs[1 - o].people[0] if who == ETRANGER else w.people[who]
        answer = await _run(client, w, person.headers, kind, n)
        code = answer.status_code if answer else None
        note(f"{kind} org={o} by={NAMES[who]}#{who} n={n} -> "
             f"{code} {answer.text[:300] if answer else 'nothing to act on'}")
        event(f"{kind} {code}")
        if answer is None:
            continue
        assert code in {200, 201, 202, 400, 403, 404, 409}, answer.text
        if who in (AUDITEUR, ETRANGER) or (who == MEMBRE and kind != "declarer"):
            assert code in {403, 404}, answer.text
            assert [await etat(db, x) for x in monde.orgs] == before, f"{NAMES[who]} changed something"
        # (f) nobody's act alone changes a treasury: money in at the counter or confirmed, or a second person's
        # decision on what another asked (a payout sent, an undo or a manual entry approved).
        if [await tresor(db, x.org.id) for x in monde.orgs] != caisses:
            assert kind in MOUVEMENTS and code in {200, 201}, (kind, code)
        w.last = (kind, code)
        for x in monde.orgs:
            await verifier(db, x)
