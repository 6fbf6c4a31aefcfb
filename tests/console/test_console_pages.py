"""Every console page through the ASGI app: sign-in, the session cookie, CSRF, the same 404/403 as the API."""

from __future__ import annotations

import re

from tests.console.connexion import KEY, PASSWORD, csrf_of, sign_in
from tests.factories.cotisations import cotisation
from unionflow.console.pages import ROLE_SETS
from unionflow.console.router import CONSOLE_PUBLIC


async def test_sign_in_sets_a_protected_cookie_and_sign_out_revokes(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    anonymous = await client.get("/console/tresorerie")
    assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/console/connexion")
    page = await client.get("/console/connexion")
    assert page.status_code == 200 and 'for="email"' in page.text and 'for="password"' in page.text
    tresorier.user.password_hash = __import__("unionflow.core.passwords", fromlist=["x"]).hash_password(PASSWORD)
    await db.flush()
    wrong = await client.post("/console/connexion", data={"csrf": csrf_of(page.text), "email": tresorier.user.email,
                                                          "password": "faux", "suite": "/console/"})
    assert wrong.status_code == 400 and "incorrect" in wrong.text
    response = await client.post("/console/connexion", data={
        "csrf": csrf_of(page.text), "email": tresorier.user.email, "password": PASSWORD, "suite": "/console/"})
    assert response.status_code == 303
    cookie = response.headers["set-cookie"]
    assert "uf_console=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/console" in cookie
    # The tokens are encrypted, not readable in the cookie: its value is "<kid>.<one Fernet token>" (version byte
    # 0x80, base64 "gAAAAA", no dot), never a JWT's dot-separated segments. (Looking for "eyJ" failed about once in
    # 150 runs: random ciphertext contains those three characters by chance.)
    value = cookie.split("uf_console=", 1)[1].split(";", 1)[0].strip('"')
    _, chiffre = value.split(".", 1)
    assert chiffre.startswith("gAAAAA") and "." not in chiffre
    home = await client.get("/console/", follow_redirects=True)
    assert home.status_code == 200 and "Trésorerie" in home.text
    csrf = csrf_of(home.text)
    out = await client.post("/console/deconnexion", data={"csrf": csrf})
    assert out.status_code == 303
    from sqlalchemy import select

    from unionflow.models import RefreshToken
    rows = (await db.execute(select(RefreshToken).where(RefreshToken.user_id == tresorier.user.id))).scalars().all()
    assert rows and all(r.revoked_at is not None for r in rows)
    again = await client.get("/console/tresorerie")
    assert again.status_code == 303


async def test_sign_in_without_the_form_token_is_refused(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    tresorier.user.password_hash = __import__("unionflow.core.passwords", fromlist=["x"]).hash_password(PASSWORD)
    await db.flush()
    response = await client.post("/console/connexion", data={"email": tresorier.user.email, "password": PASSWORD})
    assert response.status_code == 403 and "Formulaire expiré" in response.text


async def test_treasurer_records_cash_and_downloads_the_receipt(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.membre(org)
    due = await cotisation(db, membre, org, 5000)
    csrf = await sign_in(client, tresorier, db)
    board = await client.get("/console/tresorerie")
    assert board.status_code == 200 and "Cotisations encaissées aujourd" in board.text and "Arriérés" in board.text
    fiche = await client.get(f"/console/membres/{membre.id}")
    assert fiche.status_code == 200 and membre.numero_membre in fiche.text and "Encaisser un paiement" in fiche.text
    form = await client.get(f"/console/membres/{membre.id}/encaisser")
    assert form.status_code == 200
    key = KEY.search(form.text).group(1)
    data = {"csrf": csrf, "idempotency_key": key, "cotisation": str(due.id), "montant": "5000", "methode": "ESPECES"}
    created = await client.post(f"/console/membres/{membre.id}/encaisser", data=data)
    assert created.status_code == 303, created.text
    location = created.headers["location"]
    # The same form posted twice (double click, reload): one payment, the same page.
    replay = await client.post(f"/console/membres/{membre.id}/encaisser", data=data)
    assert replay.headers["location"] == location
    payment = await client.get(location)
    assert payment.status_code == 200 and "Télécharger le reçu" in payment.text and "5\u202f000" in payment.text
    assert f"<dt>Reçu par</dt><dd>{tresorier.user.email}</dd>" in payment.text  # issue 19
    pdf = await client.get(location + "/recu")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert pdf.headers["content-disposition"].startswith("attachment")


async def test_form_without_csrf_is_refused_and_nothing_is_recorded(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.membre(org)
    due = await cotisation(db, membre, org, 5000)
    await sign_in(client, tresorier, db)
    response = await client.post(f"/console/membres/{membre.id}/encaisser", data={
        "idempotency_key": "k1", "cotisation": str(due.id), "montant": "5000", "methode": "ESPECES"})
    assert response.status_code == 403 and "CSRF" in response.text
    fiche = await client.get(f"/console/membres/{membre.id}")
    assert "Aucun paiement" in fiche.text


async def test_member_declares_and_treasurer_confirms(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 3000)
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert moi.status_code == 200 and "Déclarer un paiement" in moi.text
    form = await client.get(f"/console/moi/cotisations/{due.id}/declarer")
    assert form.status_code == 200
    declared = await client.post(f"/console/moi/cotisations/{due.id}/declarer", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "montant": "3000", "methode": "VIREMENT",
        "reference": "BORD-12"})
    assert declared.status_code == 303, declared.text
    client.cookies.clear()
    csrf = await sign_in(client, tresorier, db)
    liste = await client.get("/console/declarations")
    assert liste.status_code == 200 and "3\u202f000" in liste.text
    paiement_id = re.search(r"/console/declarations/([0-9a-f-]+)/confirmer", liste.text).group(1)
    done = await client.post(f"/console/declarations/{paiement_id}/confirmer", data={
        "csrf": csrf, "idempotency_key": KEY.search(liste.text).group(1), "reference": "BORD-12"})
    assert done.status_code == 303, done.text
    page = await client.get(done.headers["location"])
    assert "Validé" in page.text and "Télécharger le reçu" in page.text


async def test_member_gets_the_404_page_for_another_member_and_403_for_treasury(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    autre = await factory.membre(org)
    await sign_in(client, membre, db)
    other = await client.get(f"/console/membres/{autre.id}")
    assert other.status_code == 404 and "Page introuvable" in other.text
    assert (await client.get("/console/membres/pas-un-uuid")).status_code == 404
    treasury = await client.get("/console/tresorerie")
    assert treasury.status_code == 403 and "Accès refusé" in treasury.text
    assert (await client.get("/console/tresorerie")).headers["content-type"].startswith("text/html")


async def test_secretary_sees_the_dry_run_report_line_by_line_then_imports(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    csrf = await sign_in(client, secretaire, db)
    csv = ("prénom;nom;email;téléphone\nFatou;Sall;fatou.sall@example.sn;+221771234567\n"
           ";;pas-un-email;123\nMoussa;Ndiaye;moussa@example.sn;+221771234568\n").encode()
    report = await client.post("/console/import", data={"csrf": csrf},
                               files={"fichier": ("membres.csv", csv, "text/csv")})
    assert report.status_code == 200, report.text
    assert "Simulation" in report.text and 'class="refus"' in report.text and report.text.count("<tr") >= 4
    contenu = re.search(r'name="contenu" value="([^"]+)"', report.text).group(1)
    listed = await client.get("/console/membres?q=sall")
    assert "Sall" not in listed.text
    done = await client.post("/console/import", data={"csrf": csrf, "contenu": contenu})
    assert done.status_code == 200 and "Import effectué" in done.text
    listed = await client.get("/console/membres?q=sall")
    assert listed.status_code == 200 and "Sall" in listed.text


async def test_active_organisation_chooser_changes_what_is_listed(client, factory, db):
    a, b = await factory.organisation(), await factory.organisation()
    secretaire = await factory.actor(organisation=a, org_roles=["SECRETAIRE"])
    db.add(__import__("unionflow.models", fromlist=["x"]).MembreOrganisation(
        membre_id=secretaire.membre.id, organisation_id=b.id, roles=["SECRETAIRE"],
        date_debut=__import__("datetime").date.today()))
    await factory.membre(a, nom="Dansa")
    await factory.membre(b, nom="Dansb")
    await db.flush()
    csrf = await sign_in(client, secretaire, db)
    # Two organisations and no choice yet: the console asks, as the API answers 400 naming the header.
    ask = await client.get("/console/membres")
    assert ask.status_code == 303 and ask.headers["location"].startswith("/console/contexte")
    await client.post("/console/contexte", data={"csrf": csrf, "organisation": str(a.id)})
    in_a = await client.get("/console/membres")
    assert "Dansa" in in_a.text and "Dansb" not in in_a.text
    await client.post("/console/contexte", data={"csrf": csrf, "organisation": str(b.id)})
    in_b = await client.get("/console/membres")
    assert "Dansb" in in_b.text and "Dansa" not in in_b.text
    forced = await client.post("/console/contexte", data={"organisation": str(a.id)})
    assert forced.status_code == 403


async def test_member_pages_and_notifications(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    await sign_in(client, membre, db)
    for path in ("/console/moi", "/console/moi/notifications", "/console/adhesions"):
        response = await client.get(path)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["cache-control"] == "no-store"
        assert "default-src 'none'" in response.headers["content-security-policy"]
    css = await client.get("/console/static/console.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert (await client.get("/console/static/nope.js")).status_code == 404


def test_every_console_page_names_a_role_set_or_is_public(app):
    from starlette.routing import Route

    console = [(m, r.path) for r in app.routes if isinstance(r, Route) and r.path.startswith("/console")
               for m in (r.methods or ()) if m != "HEAD"]
    assert console
    missing = [f"{m} {p}" for m, p in console if (m, p) not in ROLE_SETS and (m, p) not in CONSOLE_PUBLIC]
    assert not missing, missing
    assert not any(p.startswith("/console") for p in app.openapi()["paths"])


async def test_a_control_character_in_a_console_form_is_refused_and_nothing_is_recorded(client, factory, db):
    """The console's forms are text a person typed, like the API's bodies: a control character (a NUL, which
    PostgreSQL cannot store) is a French 400 page on both databases, before the page's action runs."""
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.membre(org)
    due = await cotisation(db, membre, org, 5000)
    csrf = await sign_in(client, tresorier, db)
    fiche = await client.get(f"/console/membres/{membre.id}")
    key = KEY.search(fiche.text)
    response = await client.post(f"/console/membres/{membre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": key.group(1) if key else "k-nul", "cotisation": str(due.id),
        "montant": "5000", "methode": "ESPECES", "reference": "BORD\u0000-1"})
    assert response.status_code == 400 and "contrôle" in response.text and "U+0000" in response.text
    assert "Aucun paiement" in (await client.get(f"/console/membres/{membre.id}")).text
    await client.post("/console/deconnexion", data={"csrf": csrf})
    page = await client.get("/console/connexion")
    refused = await client.post("/console/connexion", data={
        "csrf": csrf_of(page.text), "email": "a\u0000@b.sn", "password": "x", "suite": "/console/"})
    assert refused.status_code == 400 and "contrôle" in refused.text


async def test_a_page_of_one_organisation_sends_the_union_admin_to_the_chooser_and_back(client, factory, db):
    """The union administrator has no organisation of his own: each page that works on one asks him which (it
    showed a bare « Demande invalide » page on five of them, seen on the screenshots of docs/console/ecrans)."""
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    csrf = await sign_in(client, admin, db)
    for path in ("/console/avoirs", "/console/ecritures/nouvelle", "/console/nouveau-membre",
                 "/console/registre-dons", "/console/tresoreries", "/console/ecritures-a-approuver",
                 "/console/comptabilite"):
        asked = await client.get(path)
        assert asked.status_code == 303, (path, asked.text[:300])
        assert asked.headers["location"] == f"/console/contexte?suite={path}", (path, asked.headers["location"])
    chooser = await client.get("/console/contexte?suite=/console/avoirs")
    # The union administrator has no membership: the chooser lists the organisations he acts for all the same.
    assert f'value="{org.id}"' in chooser.text and "vous y serez ramené" in chooser.text
    chosen = await client.post("/console/contexte", data={"csrf": csrf, "organisation": str(org.id),
                                                          "suite": "/console/avoirs"})
    assert chosen.status_code == 303
    assert (await client.get("/console/avoirs")).status_code == 200
