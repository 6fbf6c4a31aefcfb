"""The register of volunteer time: recorded by the bureau for an active member, valued to the franc by the server,
cancelled (never deleted) with a reason, frozen once the year is closed, shown off the balance sheet in note 8 of
the SYCEBNL notes (N and N−1), in the member's export and in the console."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from unionflow.models import AuditLog, ExerciceComptable

BASE = "/api/comptabilite/benevolat"
TODAY = datetime.now(UTC).date()
LAST_YEAR = TODAY.year - 1


async def _bureau(factory):
    org = await factory.organisation()
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, secretaire, auditeur, membre


def _ligne(org, membre, jour=TODAY, heures="3.5", taux="1000", activite="Accueil à l'assemblée générale"):
    return {"organisationId": str(org.id), "membreId": str(membre.membre.id), "dateContribution": str(jour),
            "heures": heures, "tauxHoraire": taux, "activite": activite}


def _periode(org, debut=None, fin=TODAY):
    return {"organisationId": str(org.id), "debut": str(debut or date(TODAY.year, 1, 1)), "fin": str(fin)}


async def test_the_bureau_records_and_cancels_and_the_totals_follow(client, factory, db):
    org, secretaire, auditeur, membre = await _bureau(factory)
    h = {**secretaire.headers, "Idempotency-Key": "benevolat-1"}
    cree = await client.post(BASE, headers=h, json=_ligne(org, membre, heures="3.5", taux="1333"))
    assert cree.status_code == 201, cree.text
    ligne = cree.json()
    # 3.5 × 1333 = 4665.5: the server values it, to the franc, half up.
    assert (ligne["heures"], ligne["tauxHoraire"], ligne["valeur"], ligne["statut"]) == (
        "3.50", "1333.00", "4666.00", "ENREGISTREE")
    assert ligne["membre"] and membre.membre.nom in ligne["membre"]
    again = await client.post(BASE, headers=h, json=_ligne(org, membre, heures="3.5", taux="1333"))
    assert again.status_code == 201 and again.json()["id"] == ligne["id"]  # a retry: one line
    await client.post(BASE, headers=secretaire.headers, json=_ligne(org, membre, heures="2", taux="1000"))

    registre = (await client.get(BASE, headers=auditeur.headers, params=_periode(org))).json()
    assert (registre["contributions"], registre["totalHeures"], registre["totalValeur"]) == (2, "5.50", "6666.00")

    annule = await client.post(f"{BASE}/{ligne['id']}/annuler", headers=secretaire.headers,
                               json={"motif": "Saisie en double"})
    assert annule.status_code == 200, annule.text
    assert annule.json()["statut"] == "ANNULEE" and annule.json()["annulePar"]
    assert (await client.post(f"{BASE}/{ligne['id']}/annuler", headers=secretaire.headers,
                              json={"motif": "encore"})).status_code == 409
    registre = (await client.get(BASE, headers=auditeur.headers, params=_periode(org))).json()
    assert (registre["contributions"], registre["totalHeures"], registre["totalValeur"]) == (1, "2.00", "2000.00")
    assert len(registre["lignes"]) == 2  # the cancelled line is kept and shown
    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_type == "ContributionBenevole"))).scalars())
    assert {"ENREGISTRER", "ANNULER"} <= actions


async def test_who_may_record_and_what_is_refused(client, factory, db):
    org, secretaire, auditeur, membre = await _bureau(factory)
    autre = await factory.organisation()
    etranger = await factory.actor(["USER"], organisation=autre, org_roles=["MEMBRE"])
    president_ailleurs = await factory.actor(["USER"], organisation=autre, org_roles=["MEMBRE", "PRESIDENT"])

    # The auditor reads and records nothing; a member neither reads nor records.
    assert (await client.post(BASE, headers=auditeur.headers, json=_ligne(org, membre))).status_code == 403
    assert (await client.post(BASE, headers=membre.headers, json=_ligne(org, membre))).status_code == 403
    assert (await client.get(BASE, headers=membre.headers, params=_periode(org))).status_code == 403
    # Another organisation's president does not see this one: 404, not 403.
    assert (await client.post(BASE, headers=president_ailleurs.headers,
                              json=_ligne(org, membre))).status_code == 404
    # Rules of the line (the future is two days ahead of TODAY, read at import: a run may cross midnight).
    for corps, raison in ((_ligne(org, membre, jour=TODAY + timedelta(days=2)), "futur"),
                          (_ligne(org, membre, heures="745"), "744"),
                          (_ligne(org, etranger), "membre actif")):
        refus = await client.post(BASE, headers=secretaire.headers, json=corps)
        assert refus.status_code == 400 and raison in refus.json()["detail"], refus.text
    for champ, valeur in (("heures", "0"), ("tauxHoraire", "-5"), ("activite", "")):
        assert (await client.post(BASE, headers=secretaire.headers,
                                  json={**_ligne(org, membre), champ: valeur})).status_code == 400
    assert (await client.post(BASE, headers=secretaire.headers,
                              json={**_ligne(org, membre), "valeur": "1"})).status_code == 400  # server-managed


async def test_a_closed_year_keeps_its_register_and_the_notes_show_n_and_n_minus_1(client, factory, db):
    org, secretaire, auditeur, membre = await _bureau(factory)
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = secretaire.headers
    avant = (await client.post(BASE, headers=h, json=_ligne(org, membre, jour=date(LAST_YEAR, 6, 1), heures="10",
                                                            taux="500"))).json()
    assert (await client.post(BASE, headers=h, json=_ligne(org, membre, jour=date(LAST_YEAR, 7, 1), heures="1",
                                                           taux="500"))).status_code == 201
    assert (await client.post(BASE, headers=h, json=_ligne(org, membre, heures="4", taux="750"))).status_code == 201

    notes = (await client.get("/api/comptabilite/etats/sycebnl/notes", headers=auditeur.headers,
                              params={"organisationId": str(org.id), "exercice": TODAY.year})).json()["notes"]
    note = next(n for n in notes if n["numero"] == 8)
    assert note["lignes"] == [[f"N ({TODAY.year})", "1", "4.00", "3000.00"],
                              [f"N−1 ({LAST_YEAR})", "2", "11.00", "5500.00"]]

    cloture = await client.post(f"/api/comptabilite/exercices/{LAST_YEAR}/cloture", headers=tresorier.headers,
                                json={"organisationId": str(org.id)})
    assert cloture.status_code == 201, cloture.text
    assert (await db.execute(select(ExerciceComptable.date_cloture).where(
        ExerciceComptable.organisation_id == org.id, ExerciceComptable.annee == LAST_YEAR))).scalar_one()
    for reponse in (await client.post(BASE, headers=h, json=_ligne(org, membre, jour=date(LAST_YEAR, 8, 1))),
                    await client.post(f"{BASE}/{avant['id']}/annuler", headers=h, json={"motif": "Trop tard"})):
        assert reponse.status_code == 400 and "clos" in reponse.json()["detail"], reponse.text


async def test_the_notes_say_when_nothing_was_recorded(client, factory):
    org, _secretaire, auditeur, _membre = await _bureau(factory)
    notes = (await client.get("/api/comptabilite/etats/sycebnl/notes", headers=auditeur.headers,
                              params={"organisationId": str(org.id), "exercice": TODAY.year})).json()["notes"]
    note = next(n for n in notes if n["numero"] == 8)
    assert note["lignes"] == [] and "Aucun bénévolat" in note["commentaire"]


async def test_the_member_finds_it_in_his_export_and_erasure_keeps_the_value_not_the_text(client, factory):
    org, secretaire, _auditeur, membre = await _bureau(factory)
    assert (await client.post(BASE, headers=secretaire.headers,
                              json=_ligne(org, membre, activite="Cuisine pour la fête"))).status_code == 201
    export = await client.get("/api/moi/donnees", headers=membre.headers)
    assert export.status_code == 200, export.text
    section = next(s for s in export.json()["sections"] if s["cle"] == "benevolat")
    assert [(x["activite"], x["valeur"]) for x in section["lignes"]] == [("Cuisine pour la fête", "3500.00")]

    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    demande = await client.post("/api/moi/donnees/effacement", headers=membre.headers, json={"motif": "Je pars"})
    assert demande.status_code == 201, demande.text
    approuve = await client.post(f"/api/donnees/effacements/{demande.json()['id']}/approuver",
                                 headers=president.headers, json={"commentaire": "Fondée"})
    assert approuve.status_code == 200, approuve.text
    registre = (await client.get(BASE, headers=secretaire.headers, params=_periode(org))).json()
    assert [(x["activite"], x["valeur"]) for x in registre["lignes"]] == [("[effacé]", "3500.00")]
    assert registre["totalValeur"] == "3500.00" and registre["lignes"][0]["membre"].startswith("Membre effacé")


async def test_the_console_records_from_the_member_page_and_lists_and_cancels(client, factory, db):
    org, secretaire, auditeur, membre = await _bureau(factory)
    csrf = await sign_in(client, secretaire, db)
    fiche = await client.get(f"/console/membres/{membre.membre.id}")
    assert fiche.status_code == 200 and f"/membres/{membre.membre.id}/benevolat" in fiche.text
    url = f"/console/membres/{membre.membre.id}/benevolat"
    form = await client.get(url)
    assert form.status_code == 200, form.text
    cle = KEY.search(form.text).group(1)
    body = {"csrf": csrf, "idempotency_key": cle, "date_contribution": str(TODAY), "heures": "2,5",
            "taux_horaire": "1 000", "activite": "Tenue du stand"}
    refuse = await client.post(url, data={**body, "heures": "900"})
    assert refuse.status_code == 400 and "744" in refuse.text and 'value="Tenue du stand"' in refuse.text
    fait = await client.post(url, data=body)
    assert fait.status_code == 303, fait.text
    assert (await client.post(url, data=body)).status_code == 303  # a double click: one line
    page = await client.get("/console/benevolat")
    assert page.status_code == 200 and "Tenue du stand" in page.text and "2\u202f500\u00a0FCFA" in page.text
    assert page.text.count("Annuler la ligne") == 1
    ligne = (await client.get(BASE, headers=secretaire.headers, params=_periode(org))).json()["lignes"][0]
    annule = await client.post(f"/console/benevolat/{ligne['id']}/annuler", data={"csrf": csrf, "motif": "Erreur"})
    assert annule.status_code == 303
    assert "<del>Tenue du stand</del>" in (await client.get("/console/benevolat")).text
    await sign_in(client, auditeur, db)
    assert (await client.get("/console/benevolat")).status_code == 200
    assert (await client.get(url)).status_code == 403
