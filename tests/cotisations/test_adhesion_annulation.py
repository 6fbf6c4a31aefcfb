"""Issue 20, item 1: dues follow the membership, a periodic type names its period, and the treasury cancels dues
(one, a selection, a generated batch) with a reason."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import BASE, cotisation_a_venir, days, treasury
from unionflow.models import AuditLog, Cotisation, MembreOrganisation

REGLE = "https://unionflow.dev/problems/regle-metier"
YEAR = 2030  # a fixed year: the memberships' dates below are set explicitly


async def _membership(db, membre_id, debut: date, fin: date | None = None) -> None:
    row = (await db.execute(select(MembreOrganisation).where(MembreOrganisation.membre_id == membre_id))).scalar_one()
    row.date_debut, row.date_fin = debut, fin
    await db.flush()


def _body(org, mois: int | None, **extra):
    return {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": YEAR, "mois": mois,
            "montant": "2500", "dateEcheance": f"{YEAR}-{mois:02d}-05" if mois else None, **extra}


async def _dues(db, org, mois):
    return {c.membre_id: c for c in (await db.execute(select(Cotisation).where(
        Cotisation.organisation_id == org.id, Cotisation.mois == mois))).scalars()}


async def test_generation_follows_each_membership(client, factory, db):
    org, treasurer, joined_late, early = await treasury(factory)
    left = await factory.actor(["MEMBRE"], organisation=org)
    await _membership(db, treasurer.membre.id, date(YEAR - 1, 6, 1))
    await _membership(db, joined_late.membre.id, date(YEAR, 3, 26))
    await _membership(db, early.membre.id, date(YEAR, 1, 1))
    await _membership(db, left.membre.id, date(YEAR - 2, 1, 1), fin=date(YEAR, 2, 10))

    feb = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 2))
    assert feb.status_code == 200, feb.text
    assert feb.json()["creees"] == 3 and feb.json()["horsAdhesion"] == 1, feb.json()
    assert "non appelé" in feb.json()["message"]
    assert joined_late.membre.id not in await _dues(db, org, 2)

    mar = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 3))
    assert mar.json()["creees"] == 3 and mar.json()["horsAdhesion"] == 1, mar.json()
    march = await _dues(db, org, 3)
    assert left.membre.id not in march  # membership ended before March
    # Joined on the 26th, after the 5th: his dues falls due the day he joined, not before.
    assert march[joined_late.membre.id].date_echeance == date(YEAR, 3, 26)
    assert march[early.membre.id].date_echeance == date(YEAR, 3, 5)

    # Before the membership only when asked, with a reason, and the audit names it.
    no_reason = await client.post(f"{BASE}/generer", headers=treasurer.headers,
                                  json=_body(org, 1, avantAdhesion=True))
    assert no_reason.status_code == 400 and no_reason.json()["type"] == REGLE, no_reason.text
    assert "motif" in no_reason.json()["detail"]
    asked = await client.post(f"{BASE}/generer", headers=treasurer.headers,
                              json=_body(org, 1, avantAdhesion=True, motif="Rattrapage voté en AG"))
    assert asked.json()["creees"] == 4 and asked.json()["horsAdhesion"] == 0, asked.json()
    january = await _dues(db, org, 1)
    assert january[joined_late.membre.id].date_echeance == date(YEAR, 1, 5)
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "GENERER",
                                                     AuditLog.description.contains("Rattrapage voté en AG")))).scalar()
    assert entry is not None and entry.utilisateur == treasurer.user.email, (entry.utilisateur, entry.utilisateur_id)


async def test_a_periodic_type_without_its_period_is_refused_with_the_reason(client, factory):
    org, treasurer, a, _b = await treasury(factory)
    cases = [({"typeCotisation": "MENSUELLE", "mois": None}, "mois"),
             ({"typeCotisation": "TRIMESTRIELLE", "mois": None}, "trimestre"),
             ({"typeCotisation": "TRIMESTRIELLE", "mois": 2}, "trimestre"),
             ({"typeCotisation": "SEMESTRIELLE", "mois": 4}, "semestre"),
             ({"typeCotisation": "ANNUELLE", "mois": 3}, "année entière")]
    for extra, word in cases:
        body = {**_body(org, 1), **extra, "dateEcheance": None}
        answer = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=body)
        assert answer.status_code == 400 and answer.json()["type"] == REGLE, (extra, answer.text)
        assert word in answer.json()["detail"], (extra, answer.json()["detail"])
        single = await client.post(BASE, headers=treasurer.headers, json={
            "membreId": str(a.membre.id), "organisationId": str(org.id), "typeCotisation": extra["typeCotisation"],
            "annee": YEAR, "mois": extra["mois"], "montantDu": "2500"})
        assert single.status_code == 400 and single.json()["type"] == REGLE, (extra, single.text)
    quarter = await client.post(f"{BASE}/generer", headers=treasurer.headers,
                                json={**_body(org, 4), "typeCotisation": "TRIMESTRIELLE"})
    assert quarter.status_code == 200 and quarter.json()["creees"] == 3, quarter.text
    spec = (await client.get("/openapi.json")).json()["paths"][f"{BASE}/generer"]["post"]["description"]
    assert "MENSUELLE" in spec and "regle-metier" in spec and "avantAdhesion" in spec


async def test_the_treasury_cancels_a_selection_with_a_reason(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    late = await cotisation_a_venir(factory, a.membre, org, echeance=date(2020, 1, 5))
    other = await cotisation_a_venir(factory, b.membre, org, echeance=date(2020, 2, 5))
    before = (await client.get(f"{BASE}/stats", headers=treasurer.headers)).json()
    assert before["parStatut"]["EN_RETARD"] == 2 and Decimal(before["montantEnRetard"]) == Decimal("10000")

    refused = await client.post(f"{BASE}/annulation", headers=a.headers,
                                json={"cotisationIds": [str(late.id)], "motif": "Erreur"})
    assert refused.status_code == 403, refused.text
    no_reason = await client.post(f"{BASE}/annulation", headers=treasurer.headers,
                                  json={"cotisationIds": [str(late.id)]})
    assert no_reason.status_code == 400
    both = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={
        "cotisationIds": [str(late.id)], "lot": {"organisationId": str(org.id), "typeCotisation": "MENSUELLE",
                                                 "annee": 2026, "mois": 3}, "motif": "Erreur"})
    assert both.status_code == 400 and both.json()["type"] == REGLE

    done = await client.post(f"{BASE}/annulation", headers={**treasurer.headers, "Idempotency-Key": "annul-1"},
                             json={"cotisationIds": [str(late.id), str(other.id)], "motif": "Adhérents du 26/11"})
    assert done.status_code == 200, done.text
    assert done.json()["annulees"] == 2 and done.json()["dejaAnnulees"] == 0
    again = await client.post(f"{BASE}/annulation", headers=treasurer.headers,
                              json={"cotisationIds": [str(late.id)], "motif": "Adhérents du 26/11"})
    assert again.json()["annulees"] == 0 and again.json()["dejaAnnulees"] == 1
    one = (await client.get(f"{BASE}/{late.id}", headers=treasurer.headers)).json()
    assert one["statut"] == "ANNULEE" and Decimal(one["montantRestant"]) == 0 and not one["enRetard"]
    assert "Adhérents du 26/11" in one["observations"]
    after = (await client.get(f"{BASE}/stats", headers=treasurer.headers)).json()
    assert after["parStatut"]["EN_RETARD"] == 0 and Decimal(after["montantEnRetard"]) == 0
    assert Decimal(after["montantDu"]) == 0 and Decimal(after["tauxRecouvrement"]) == 0
    overdue = (await client.get(f"{BASE}/en-retard", headers=treasurer.headers)).json()
    assert overdue["totalElements"] == 0
    mine = (await client.get(f"{BASE}/mes-cotisations/synthese", headers=a.headers)).json()
    assert mine["nombreEnRetard"] == 0 and Decimal(mine["montantRestant"]) == 0
    audits = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ANNULER_COTISATION"))).scalars().all()
    assert {x.entite_id for x in audits} == {str(late.id), str(other.id)}
    assert all("Adhérents du 26/11" in (x.description or "") for x in audits)


async def test_dues_with_money_are_not_cancelled_and_a_batch_goes_whole(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    await _membership(db, a.membre.id, date(YEAR - 1, 1, 1))
    await _membership(db, b.membre.id, date(YEAR - 1, 1, 1))
    await _membership(db, treasurer.membre.id, date(YEAR - 1, 1, 1))
    assert (await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 6))).status_code == 200
    june = await _dues(db, org, 6)
    paid = await client.put(f"{BASE}/{june[a.membre.id].id}/payer",
                            headers={**treasurer.headers, "Idempotency-Key": "annul-pay"}, json={"montant": "1000"})
    assert paid.status_code == 200, paid.text
    lot = {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": YEAR, "mois": 6}
    refused = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={"lot": lot, "motif": "Erreur"})
    assert refused.status_code == 409 and "rembourse" in refused.json()["detail"], refused.text
    selection = await client.post(f"{BASE}/annulation", headers=treasurer.headers, json={
        "cotisationIds": [str(june[a.membre.id].id), str(june[b.membre.id].id)], "motif": "Erreur"})
    assert selection.status_code == 409 and june[a.membre.id].numero_reference in selection.json()["detail"]
    # Nothing went through: all or nothing.
    await db.refresh(june[b.membre.id])
    assert june[b.membre.id].statut == "EN_ATTENTE"

    assert (await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_body(org, 7))).status_code == 200
    whole = await client.post(f"{BASE}/annulation", headers=treasurer.headers,
                              json={"lot": {**lot, "mois": 7}, "motif": "Montant erroné"})
    assert whole.status_code == 200 and whole.json()["annulees"] == 3, whole.text
    july = await _dues(db, org, 7)
    for c in july.values():
        await db.refresh(c)
    assert {c.statut for c in july.values()} == {"ANNULEE"}
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ANNULER_COTISATION",
                                                     AuditLog.entite_id == str(org.id)))).scalar_one()
    assert "Montant erroné" in entry.description
    empty = await client.post(f"{BASE}/annulation", headers=treasurer.headers,
                              json={"lot": {**lot, "mois": 8}, "motif": "Erreur"})
    assert empty.status_code == 404
    stranger = await factory.actor(["USER"], organisation=await factory.organisation(), org_roles=["TRESORIER"])
    hidden = await client.post(f"{BASE}/annulation", headers=stranger.headers,
                               json={"cotisationIds": [str(june[b.membre.id].id)], "motif": "Erreur"})
    assert hidden.status_code == 404


async def test_dashboard_account_and_summary_read_one_computation(client, factory, db):
    org, _treasurer, a, _b = await treasury(factory)
    other_org = await factory.organisation()
    await cotisation_a_venir(factory, a.membre, org, montant="2500", echeance=days(-40))
    await cotisation_a_venir(factory, a.membre, org, montant="2500", echeance=days(-10), montant_paye=Decimal("1000"),
                     statut="PARTIELLEMENT_PAYEE")
    await cotisation_a_venir(factory, a.membre, org, montant="2500", echeance=days(15))
    await cotisation_a_venir(factory, a.membre, org, montant="2500", echeance=days(45))
    await cotisation_a_venir(factory, a.membre, org, montant="2500", montant_paye=Decimal("2500"), statut="PAYEE",
                     echeance=days(-70))
    await cotisation_a_venir(factory, a.membre, org, montant="2500", statut="ANNULEE", echeance=days(5))
    await cotisation_a_venir(factory, a.membre, other_org, montant="1000", echeance=days(3))
    summary = (await client.get(f"{BASE}/mes-cotisations/synthese", headers=a.headers)).json()
    dashboard = (await client.get("/api/dashboard/membre/me", headers=a.headers)).json()["cotisations"]
    account = (await client.get("/api/compte-adherent/me", headers=a.headers)).json()["cotisations"]
    assert summary["nombreCotisations"] == 6  # the cancelled one is not owed, so not counted
    shared = ("nombreAPayer", "nombreEnRetard", "nombrePayees", "montantDu", "montantPaye", "montantRestant",
              "montantEnRetard", "prochaineEcheance")
    for name in shared:
        assert summary[name] == dashboard[name] == account[name], (name, summary, dashboard, account)
    assert dashboard["nombreTotal"] == account["nombreTotal"] == summary["nombreCotisations"]
    assert summary["prochaineEcheance"] == str(days(3)) and summary["nombreEnRetard"] == 2
    assert Decimal(summary["montantRestant"]) == Decimal("10000") and Decimal(summary["montantEnRetard"]) == 4000
