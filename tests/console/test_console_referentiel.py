"""The accounting referential in the console: the treasurer reads it without the form; the president of a mutual
is refused PCMS without its approval (the form comes back with what was typed), then chooses it."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.console.connexion import sign_in


async def test_president_chooses_pcms_citing_the_approval(client, factory, db):
    org = await factory.organisation(type_organisation="MUTUELLE")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    await sign_in(client, tresorier, db)
    lu = await client.get(f"/console/organisations/{org.id}/referentiel")
    assert lu.status_code == 200 and "SYCEBNL — système normal" in lu.text and "Enregistrer le choix" not in lu.text
    client.cookies.clear()
    csrf = await sign_in(client, president, db)
    annee = str(datetime.now(UTC).year)
    refus = await client.post(f"/console/organisations/{org.id}/referentiel", data={
        "csrf": csrf, "referentiel": "PCMS", "exercice": annee, "motif": "Mutuelle sociale agréée"})
    assert refus.status_code == 400 and "agrément" in refus.text and 'value="Mutuelle sociale agréée"' in refus.text
    fait = await client.post(f"/console/organisations/{org.id}/referentiel", data={
        "csrf": csrf, "referentiel": "PCMS", "exercice": annee, "motif": "Mutuelle sociale agréée",
        "reference_agrement": "AGR-MS-2021-003"})
    assert fait.status_code == 303, fait.text
    vu = await client.get(f"/console/organisations/{org.id}/referentiel")
    assert "PCMS — mutuelle sociale agréée" in vu.text and "AGR-MS-2021-003" in vu.text
