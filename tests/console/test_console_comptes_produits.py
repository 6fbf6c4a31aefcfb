"""Income accounts per kind in the console: the president reads them without the forms; the treasurer is refused
an account absent from the chart (the form comes back with what was chosen), adopts the SYCEBNL numbering in one
act, then puts one kind back on its default — each through the API's service, as the API reads it after."""

from __future__ import annotations

from tests.console.connexion import sign_in

SYCEBNL = {"COTISATION": "7011", "ADHESION": "7012", "COTISATION_EXCEPTIONNELLE": "7013", "SOLIDARITE": "7014",
           "EVENEMENT": "7060", "DON": "7041"}


async def test_treasurer_adopts_the_sycebnl_numbering_and_chooses_per_kind(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    page = f"/console/organisations/{org.id}/comptes-produits"

    await sign_in(client, president, db)
    lu = await client.get(page)
    assert lu.status_code == 200 and "7061" in lu.text and "compte par défaut" in lu.text
    assert "Adopter la numérotation SYCEBNL" not in lu.text and "Enregistrer les choix" not in lu.text
    client.cookies.clear()

    csrf = await sign_in(client, tresorier, db)
    lu = await client.get(page)
    assert "Adopter la numérotation SYCEBNL" in lu.text and "Enregistrer les choix" in lu.text
    refus = await client.post(page, data={"csrf": csrf, "compte_DON": "7999"})
    assert refus.status_code == 400 and "7999 n&#39;existe pas" in refus.text, refus.text

    adopte = await client.post(f"{page}/sycebnl", data={"csrf": csrf})
    assert adopte.status_code == 303, adopte.text
    vu = await client.get(f"{page}?fait=sycebnl")
    assert "Numérotation SYCEBNL adoptée" in vu.text and "Revenus liés à la générosité : dons" in vu.text
    assert "Adopter la numérotation SYCEBNL" not in vu.text
    api = f"/api/comptabilite/comptes-produits?organisationId={org.id}"
    assert {c["nature"]: c["numeroCompte"] for c in (await client.get(api, headers=tresorier.headers)).json()} == (
        SYCEBNL)

    # The form carries every kind: the donation left empty goes back to the default account, the others stay.
    choix = {f"compte_{nature}": numero for nature, numero in SYCEBNL.items() if nature != "DON"}
    fait = await client.post(page, data={"csrf": csrf, **choix, "compte_DON": ""})
    assert fait.status_code == 303, fait.text
    lus = {c["nature"]: (c["numeroCompte"], c["parDefaut"])
           for c in (await client.get(api, headers=tresorier.headers)).json()}
    assert lus["DON"] == ("7581", True) and lus["COTISATION"] == ("7011", False)
