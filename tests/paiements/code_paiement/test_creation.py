"""Every dues gets its payment code when it is created (one by one, or generated for a period), unique, valid,
shown in the dues' API answers."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.cotisations import treasury
from unionflow.core.code_paiement import est_valide, lire, trouver
from unionflow.models import Cotisation


async def test_created_and_generated_dues_carry_a_valid_unique_code(client, factory, db):
    org, treasurer, a, _b = await treasury(factory)
    one = await client.post("/api/cotisations", headers=treasurer.headers, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "typeCotisation": "EXCEPTIONNELLE",
        "annee": 2026, "montantDu": "3000"})
    assert one.status_code == 201, one.text
    assert est_valide(one.json()["codePaiement"])
    generated = await client.post("/api/cotisations/generer", headers=treasurer.headers, json={
        "organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": 2026, "mois": 12, "montant": "2500"})
    assert generated.status_code in (200, 201) and generated.json()["creees"] == 3, generated.text
    codes = list((await db.execute(select(Cotisation.code_paiement).where(
        Cotisation.organisation_id == org.id))).scalars())
    assert len(codes) == 4 and len(set(codes)) == 4 and all(c is not None and est_valide(c) for c in codes)
    mine = await client.get("/api/cotisations/mes-cotisations", headers=a.headers)
    assert mine.status_code == 200, mine.text
    assert {c["codePaiement"] for c in mine.json()["content"]} <= set(codes)
    detail = await client.get(f"/api/cotisations/{one.json()['id']}", headers=a.headers)
    assert detail.json()["codePaiement"] == one.json()["codePaiement"]


def test_check_digits_catch_every_single_typo_and_swap():
    code = "48210937512"
    assert not est_valide(code) or lire(code) == code
    from unionflow.core.code_paiement import cle_controle
    corps = "482109375"
    code = corps + cle_controle(corps)
    assert est_valide(code) and lire(f"{code[:4]} {code[4:8]}-{code[8:]}") == code
    for i in range(len(code)):
        for d in "0123456789":
            if d != code[i]:
                assert not est_valide(code[:i] + d + code[i + 1:])
        for j in range(i + 1, len(code)):
            if code[i] != code[j]:
                swapped = list(code)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                assert not est_valide("".join(swapped))
    assert trouver(f"cotisation de maman {code[:4]} {code[4:8]} {code[8:]} merci") == (code, True)
    assert trouver("cotisation 1234567890 1") == (None, True)
    assert trouver("pas de code 12345") == (None, False)


async def test_the_reminder_names_each_dues_code(client, factory, db):
    from tests.factories.code_paiement import dues_avec_code
    from unionflow.core.code_paiement import afficher
    from unionflow.models import Notification

    org, treasurer, a, _b = await treasury(factory)
    dues = await dues_avec_code(db, a.membre, org, 2000)
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(a.membre.id)])
    assert reminded.status_code == 200, reminded.text
    mail = (await db.execute(select(Notification).where(Notification.membre_id == a.membre.id,
                                                        Notification.canal == "EMAIL"))).scalar_one()
    assert f"Code de paiement: {afficher(dues.code_paiement)}" in mail.corps
