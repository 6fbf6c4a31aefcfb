"""The home page of each role (what needs doing now, each count equal to the API's figure), the menu grouped by task
(every link of every role's menu opens), sign-out everywhere, the expired session said in French, and the
organisation chooser (never shown to a person of one organisation; a secretary of three lands on her work)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import httpx
from sqlalchemy import select, update

from tests.console.connexion import KEY, csrf_of, sign_in
from tests.factories.cotisations import cotisation
from tests.factories.donnees_personnelles import consentement
from tests.wave.fake_wave import fake_wave_server, wave  # noqa: F401 - fixtures
from unionflow.console.pages_comptabilite import MOIS
from unionflow.console.services_accueil import mois_a_cloturer
from unionflow.models import MembreOrganisation, RefreshToken, ReleveWave

NOMBRE = re.compile(r'data-nombre="([\w-]+)">(\d+)<')
NAV = re.compile(r'<nav aria-label="Menu principal">(.*?)</nav>', re.S)
LIEN = re.compile(r'href="(/console/[^"?#]*)"')
CSV = ("Horodatage;Identifiant de transaction;Type de transaction;Montant;Frais;Solde;Devise;Référence client\n"
       "{now};T_ACCUEIL0001;merchant_payment;990;10;990;XOF;\n"
       "{now};T_ACCUEIL0002;merchant_payment;1500;15;2490;XOF;\n")


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def _accueil(client) -> tuple[str, dict[str, int]]:
    page = await client.get("/console/")
    assert page.status_code == 200, page.text
    return page.text, {cle: int(n) for cle, n in NOMBRE.findall(page.text)}


def _total(response: httpx.Response) -> int:
    assert response.status_code == 200, response.text
    return int(response.json()["totalElements"])


async def test_the_treasurer_home_counts_what_the_api_counts(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membres = [await factory.actor(organisation=org, org_roles=["MEMBRE"]) for _ in range(3)]
    for m in membres[:2]:  # two declarations waiting for the treasury
        due = await cotisation(db, m.membre, org, 3000)
        declared = await client.put(f"/api/cotisations/{due.id}/payer", headers=m.headers,
                                    json={"montant": "3000", "methodePaiement": "VIREMENT"})
        assert declared.status_code == 200, declared.text
    csrf = await _as(client, tresorier, db)
    form = await client.get("/console/versements")
    prepared = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "objet_type": "AUTRE", "montant": "12000",
        "motif": "Fournitures de bureau", "beneficiaire_nom": "Librairie", "mode": "MANUEL"})
    assert prepared.status_code == 303, prepared.text
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    imported = await client.post("/console/wave/releves", data={"csrf": csrf}, files={
        "fichier": ("releve.csv", CSV.format(now=now).encode(), "text/csv")})
    assert imported.status_code == 303, imported.text
    detail = await client.get(imported.headers["location"])
    done = await client.post(imported.headers["location"] + "/rapprocher", data={
        "csrf": csrf, "idempotency_key": KEY.search(detail.text).group(1)})
    assert done.status_code == 303, done.text

    text, nombres = await _accueil(client)
    h = tresorier.headers
    attente = _total(await client.get(f"/api/paiements?statut=EN_ATTENTE&organisationId={org.id}", headers=h))
    wave_attente = _total(await client.get(f"/api/paiements?statut=EN_ATTENTE&methode=WAVE&organisationId={org.id}",
                                           headers=h))
    assert nombres["declarations"] == attente - wave_attente == 2
    assert nombres["versements"] == _total(await client.get(
        f"/api/versements?statut=EN_COURS&organisationId={org.id}", headers=h)) == 1
    releve = (await db.execute(select(ReleveWave))).scalar_one()
    api_releve = (await client.get(f"/api/wave/releves/{releve.id}", headers=h)).json()
    assert nombres["wave"] == api_releve["lignesParStatut"]["INCONNUE"] == 2
    assert nombres["a-approuver"] == _total(await client.get("/api/approbations/a-approuver", headers=h))
    assert nombres["cloture"] == 1  # no closing yet: last month is to close
    annee, mois = mois_a_cloturer(date.today())
    assert f"Clôture de {MOIS[mois - 1]} {annee}" in text and 'href="/console/clotures"' in text
    assert nombres["mes-cotisations"] == len((await client.get("/api/compte-adherent/me", headers=h)).json()[
        "cotisationsAPayer"]) == 0
    # Each count leads where the work is done.
    for lien in ("/console/declarations", "/console/versements", "/console/wave/releves", "/console/a-approuver"):
        assert f'href="{lien}"' in text


async def test_the_president_and_the_member_see_their_own_work(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    await cotisation(db, membre.membre, org, 5000)
    await cotisation(db, membre.membre, org, 2500)
    await consentement(db, membre.membre.id, org.id)
    asked = await client.post("/api/demandes-aide", headers=membre.headers, json={
        "organisationId": str(org.id), "type": "MALADIE", "titre": "Hospitalisation à Thiès",
        "description": "Frais d'hospitalisation et de médicaments", "montantDemande": "75000"})
    assert asked.status_code == 200, asked.text
    csrf = await _as(client, tresorier, db)
    lock = (date.today().replace(day=1) - timedelta(days=1)).isoformat()
    await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": lock})
    reopen = await client.post("/console/comptabilite/deverrouillages", data={
        "csrf": csrf, "date": (date.fromisoformat(lock) - timedelta(days=40)).isoformat(),
        "motif": "Écriture du mois dernier à corriger"})
    assert reopen.status_code == 303, reopen.text

    await _as(client, president, db)
    text, nombres = await _accueil(client)
    assert nombres["a-approuver"] == _total(await client.get("/api/approbations/a-approuver",
                                                             headers=president.headers)) == 1
    assert nombres["aides"] == 1
    # Not his work: he reads the treasury but neither confirms declarations nor closes the month.
    assert "declarations" not in nombres and "cloture" not in nombres

    await _as(client, membre, db)
    text, nombres = await _accueil(client)
    compte = (await client.get("/api/compte-adherent/me", headers=membre.headers)).json()
    assert nombres["mes-cotisations"] == len(compte["cotisationsAPayer"]) == 2
    assert "7\u202f500\u00a0FCFA" in text and 'href="/console/moi"' in text
    assert set(nombres) == {"mes-cotisations"}  # nothing of the bureau


ROLES = (["MEMBRE"], ["MEMBRE", "TRESORIER"], ["MEMBRE", "PRESIDENT"], ["MEMBRE", "SECRETAIRE"],
         ["COMMISSAIRE_AUX_COMPTES"], ["MEMBRE", "ADMIN_ORGANISATION"], ["MEMBRE", "ORGANISATEUR_EVENEMENT"],
         ["MEMBRE", "TRESORIER", "SECRETAIRE"])


async def test_every_link_of_every_role_menu_opens(client, factory, db):
    """The menu is grouped by task and offers a page only to whom it answers 200 (never a 403 behind a link)."""
    org = await factory.organisation()
    seen: dict[str, set[str]] = {}
    for roles in ROLES:
        actor = await factory.actor(organisation=org, org_roles=roles)
        await _as(client, actor, db)
        home = await client.get("/console/")
        nav = NAV.search(home.text)
        assert nav, home.text[:2000]
        liens = sorted(set(LIEN.findall(nav.group(1))))
        assert liens and nav.group(1).count("<details>") <= 6, roles
        for lien in liens:
            page = await client.get(lien)
            assert page.status_code == 200, (roles, lien, page.status_code, page.text[:500])
        seen["+".join(roles)] = set(liens)
    assert "/console/tresorerie" not in seen["MEMBRE"] and "/console/membres" not in seen["MEMBRE"]
    assert "/console/moi" in seen["MEMBRE"] and "/console/a-approuver" not in seen["COMMISSAIRE_AUX_COMPTES"]
    # Several roles: the union of their menus.
    assert seen["MEMBRE+TRESORIER"] | seen["MEMBRE+SECRETAIRE"] <= seen["MEMBRE+TRESORIER+SECRETAIRE"]
    both, _ = await _accueil(client)
    assert all(f">{titre}</h2>" in both for titre in ("Encaisser", "Membres", "Mon compte"))


async def test_sign_out_everywhere_ends_every_session_of_the_person(app, client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as phone:
        await sign_in(phone, tresorier, None)
        assert (await phone.get("/console/tresorerie")).status_code == 200
        out = await client.post("/console/deconnexion-partout", data={"csrf": csrf})
        assert out.status_code == 303 and out.headers["location"] == "/console/connexion?fait=partout"
        assert "tous vos appareils" in (await client.get(out.headers["location"])).text
        # The other browser is signed out at its next page, not when its access token expires.
        ended = await phone.get("/console/tresorerie")
        assert ended.status_code == 303 and "expiree=1" in ended.headers["location"]
        assert "Votre session a expiré" in (await phone.get(ended.headers["location"])).text
    rows = (await db.execute(select(RefreshToken).where(RefreshToken.user_id == tresorier.user.id))).scalars().all()
    assert len(rows) == 2 and all(r.revoked_at is not None for r in rows)
    assert (await client.get("/console/tresorerie")).status_code == 303


async def test_an_expired_session_is_said_in_french(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    await sign_in(client, membre, db)
    assert (await client.get("/console/moi")).status_code == 200
    await db.execute(update(RefreshToken).where(RefreshToken.user_id == membre.user.id)
                     .values(expires_at=datetime.now(UTC) - timedelta(minutes=1)))
    await db.flush()
    expired = await client.get("/console/moi")
    assert expired.status_code == 303
    assert expired.headers["location"] == "/console/connexion?suite=/console/moi&expiree=1"
    page = await client.get(expired.headers["location"])
    assert page.status_code == 200 and "Votre session a expiré" in page.text
    # Never signed in: the plain sign-in page.
    client.cookies.clear()
    fresh = await client.get("/console/moi")
    assert "expiree" not in fresh.headers["location"]


async def test_the_chooser_only_for_several_organisations_and_the_secretary_lands_on_her_members(
        client, factory, db):
    a, b, c = [await factory.organisation(nom=f"Mutuelle {n}") for n in ("Alpha", "Bêta", "Gamma")]
    seule = await factory.actor(organisation=a, org_roles=["MEMBRE", "TRESORIER"])
    await _as(client, seule, db)
    text, _ = await _accueil(client)
    assert "/console/contexte" not in text and "Changer d'organisation" not in text

    secretaire = await factory.actor(organisation=a, org_roles=["MEMBRE", "SECRETAIRE"])
    for org in (b, c):
        db.add(MembreOrganisation(membre_id=secretaire.membre.id, organisation_id=org.id,
                                  roles=["MEMBRE", "SECRETAIRE"], date_debut=date.today()))
    for org, nom in ((a, "Diopa"), (b, "Diopb"), (b, "Diopbb"), (c, "Diopc")):
        await factory.membre(org, nom=nom)
    await db.flush()
    csrf = await _as(client, secretaire, db)
    landing = await client.get("/console/", follow_redirects=True)
    assert landing.status_code == 200 and str(landing.url).endswith("/console/")
    assert "Pour quelle organisation travaillez-vous" in landing.text
    assert all(nom in landing.text for nom in ("Mutuelle Alpha", "Mutuelle Bêta", "Mutuelle Gamma"))
    assert "Changer d'organisation" in landing.text  # the chooser, from the header
    chosen = await client.post("/console/contexte", data={"csrf": csrf_of(landing.text), "organisation": str(b.id),
                                                          "suite": "/console/"})
    assert chosen.status_code == 303 and chosen.headers["location"] == "/console/"
    text, nombres = await _accueil(client)
    api = await client.get("/api/membres", headers={**secretaire.headers, "X-Active-Organisation-Id": str(b.id)})
    assert nombres["membres"] == _total(api) and 'href="/console/membres"' in text
    listed = await client.get("/console/membres")
    assert "Diopb" in listed.text and "Diopa" not in listed.text
    assert csrf


async def test_the_administrator_home_counts_the_set_up_steps_left(client, factory, db):
    from unionflow.console.mise_en_route import restantes
    from unionflow.core.auth import AuthContext

    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    auth = AuthContext(sub=str(admin.user.id), email=admin.user.email, username=admin.user.email,
                       realm_roles=frozenset({"SUPER_ADMIN"}), roles=frozenset({"SUPER_ADMIN"}), membre_id=None,
                       memberships={}, active_organisation_id=None)
    left = await restantes(db, auth)
    assert left, "a fresh installation has set-up steps left"
    await _as(client, admin, db)
    text, nombres = await _accueil(client)
    assert nombres["mise-en-route"] == len(left)
    assert f"Prochaine: {left[0].titre}" in text and 'href="/console/mise-en-route"' in text
