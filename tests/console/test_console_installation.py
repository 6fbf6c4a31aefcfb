"""Setting an organisation up in the console: treasuries (cash box, bank with overdraft, Wave), opening balances
asked for and approved by a second person on « À approuver », the Wave account, the settings and the dues scale,
each through the API's own service; a refused form keeps what was typed; other roles and organisations refused."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from unionflow.models import CompteWave, ConfigurationOrganisation, DemandeApprobation, Tresorerie


async def _tresorier(client, factory, db):
    org = await factory.organisation(type_organisation="MUTUELLE")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    return org, tresorier, president, await sign_in(client, tresorier, db)


async def _tresoreries(db, org) -> dict[str, Tresorerie]:
    rows = (await db.execute(select(Tresorerie).where(Tresorerie.organisation_id == org.id))).scalars()
    return {t.nom: t for t in rows}


async def test_treasuries_and_opening_balances_approved_by_a_second_person(client, factory, db):
    org, _, president, csrf = await _tresorier(client, factory, db)
    url = f"/console/organisations/{org.id}/tresoreries"
    for body in ({"type": "CAISSE", "nom": "Caisse du siège", "numero_compte": "571", "par_defaut": "oui"},
                 {"type": "BANQUE", "nom": "Banque CBAO", "numero_compte": "5211", "decouvert": "100 000"},
                 {"type": "WAVE", "nom": "Wave Business", "numero_compte": "5215"}):
        done = await client.post(url, data={"csrf": csrf, **body})
        assert done.status_code == 303, done.text
    found = await _tresoreries(db, org)
    assert found["Banque CBAO"].decouvert_autorise == Decimal("100000") and found["Caisse du siège"].par_defaut

    page = await client.get(url)
    assert "Soldes d'ouverture" in page.text and "Banque CBAO" in page.text
    form = {"csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "date_debut": "2026-01-01",
            f"solde_{found['Caisse du siège'].id}": "25 000", f"solde_{found['Banque CBAO'].id}": "-50000"}
    asked = await client.post(f"/console/organisations/{org.id}/a-nouveaux", data=form)
    assert asked.status_code == 303, asked.text
    replay = await client.post(f"/console/organisations/{org.id}/a-nouveaux", data=form)
    assert replay.status_code == 303  # the same form sent twice: one request
    demandes = list((await db.execute(select(DemandeApprobation).where(
        DemandeApprobation.organisation_id == org.id))).scalars())
    assert len(demandes) == 1 and demandes[0].statut == "EN_ATTENTE"
    shown = await client.get(url)
    assert "En attente" in shown.text and "Des soldes d'ouverture sont déjà saisis" in shown.text

    client.cookies.clear()
    csrf_president = await sign_in(client, president, db)
    waiting = await client.get("/console/ecritures-a-approuver")
    assert "25" in waiting.text and KEY.search(waiting.text)
    approved = await client.post(f"/console/demandes/a-nouveaux/{demandes[0].id}/approuver", data={
        "csrf": csrf_president, "idempotency_key": KEY.search(waiting.text).group(1)})
    assert approved.status_code == 303, approved.text
    await db.refresh(demandes[0])
    assert demandes[0].statut == "APPROUVEE"
    assert "Approuvée" in (await client.get(url)).text


async def test_a_refused_treasury_or_opening_balance_keeps_what_was_typed(client, factory, db):
    org, _, _, csrf = await _tresorier(client, factory, db)
    url = f"/console/organisations/{org.id}/tresoreries"
    refused = await client.post(url, data={"csrf": csrf, "type": "CAISSE", "nom": "Caisse annexe",
                                           "numero_compte": "5211"})
    assert refused.status_code == 400, refused.text
    assert "ne convient pas" in refused.text and 'value="Caisse annexe"' in refused.text
    assert 'value="5211"' in refused.text and 'value="CAISSE" selected' in refused.text
    assert (await client.post(url, data={"csrf": csrf, "type": "CAISSE", "nom": "Caisse", "numero_compte": "571"})
            ).status_code == 303
    twice = await client.post(url, data={"csrf": csrf, "type": "CAISSE", "nom": "Caisse", "numero_compte": "5711"})
    assert twice.status_code == 409 and "appelle déjà" in twice.text and 'value="5711"' in twice.text
    caisse = (await _tresoreries(db, org))["Caisse"]
    page = await client.get(url)
    below_zero = await client.post(f"/console/organisations/{org.id}/a-nouveaux", data={
        "csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "date_debut": "2026-01-01",
        f"solde_{caisse.id}": "-500", "motif": "Reprise des comptes"})
    assert below_zero.status_code == 400, below_zero.text
    assert "ne peut pas ouvrir" in below_zero.text and 'value="-500"' in below_zero.text
    assert 'value="Reprise des comptes"' in below_zero.text and 'value="2026-01-01"' in below_zero.text


async def test_the_wave_account_is_registered_without_showing_its_secrets(client, factory, db):
    org, _, _, csrf = await _tresorier(client, factory, db)
    url = f"/console/organisations/{org.id}/wave"
    refused = await client.post(url, data={"csrf": csrf, "libelle": "Wave de la mutuelle",
                                           "numero_telephone": "77123", "cle_api": "wave_sn_prod_secret123"})
    assert refused.status_code == 400 and 'value="Wave de la mutuelle"' in refused.text
    assert "wave_sn_prod_secret123" not in refused.text
    done = await client.post(url, data={"csrf": csrf, "libelle": "Wave de la mutuelle",
                                        "numero_telephone": "+221 77 123 45 67", "cle_api": "wave_sn_prod_secret123",
                                        "secret_webhook": "whsec_0123456789"})
    assert done.status_code == 303, done.text
    compte = (await db.execute(select(CompteWave).where(CompteWave.organisation_id == org.id))).scalar_one()
    assert compte.numero_telephone == "+221771234567" and compte.cle_api == "wave_sn_prod_secret123"
    page = await client.get(url)
    assert "Wave de la mutuelle" in page.text and "wave_sn_prod_secret123" not in page.text


async def test_settings_and_dues_scale(client, factory, db):
    org, _, _, csrf = await _tresorier(client, factory, db)
    page = await client.get(f"/console/organisations/{org.id}/parametres")
    assert page.status_code == 200 and "Imputer automatiquement" in page.text
    done = await client.post(f"/console/organisations/{org.id}/parametres", data={
        "csrf": csrf, "cotisations_avoir_imputation_automatique": "oui"})
    assert done.status_code == 303, done.text
    bareme = await client.get(f"/console/organisations/{org.id}/cotisations")
    assert "Cotisation mensuelle" in bareme.text and "Imputer" not in bareme.text
    refused = await client.post(f"/console/organisations/{org.id}/cotisations", data={
        "csrf": csrf, "cotisations_bareme_mensuelle": "2 500", "cotisations_bareme_annuelle": "beaucoup"})
    assert refused.status_code == 400 and 'value="beaucoup"' in refused.text and 'value="2 500"' in refused.text
    saved = await client.post(f"/console/organisations/{org.id}/cotisations", data={
        "csrf": csrf, "cotisations_bareme_mensuelle": "2 500", "cotisations_bareme_annuelle": "0"})
    assert saved.status_code == 303, saved.text
    rows = {r.cle: r.valeur for r in (await db.execute(select(ConfigurationOrganisation).where(
        ConfigurationOrganisation.organisation_id == org.id))).scalars()}
    assert rows == {"cotisations.avoir.imputation_automatique": "true", "cotisations.bareme.mensuelle": "2500"}
    generation = await client.get("/console/cotisations/generer")  # the scale is offered where dues are made
    assert 'value="MENSUELLE" selected' in generation.text and 'value="2500"' in generation.text
    assert "Barème de l'organisation: Mensuelle 2\u202f500" in generation.text.replace("&#39;", "'")


async def test_other_roles_and_organisations_are_refused(client, factory, db):
    org, _, president, _ = await _tresorier(client, factory, db)
    other = await factory.organisation()
    client.cookies.clear()
    csrf = await sign_in(client, president, db)
    read = await client.get(f"/console/organisations/{org.id}/tresoreries")
    assert read.status_code == 200 and "Déclarer une trésorerie" not in read.text
    assert (await client.post(f"/console/organisations/{org.id}/tresoreries", data={
        "csrf": csrf, "type": "CAISSE", "nom": "Caisse", "numero_compte": "571"})).status_code == 403
    assert (await client.get(f"/console/organisations/{org.id}/parametres")).status_code == 403
    assert (await client.get(f"/console/organisations/{other.id}/tresoreries")).status_code == 404
    client.cookies.clear()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await sign_in(client, member, db)
    for path in ("tresoreries", "wave", "parametres", "cotisations"):
        assert (await client.get(f"/console/organisations/{org.id}/{path}")).status_code == 403
