"""The secretary's screens over the same services as the API (issue 22): the register's search ignores accents and
case, the import's dry-run report shows shared phones line by line, then the real run imports those lines."""

from __future__ import annotations

import re
import uuid

from tests.console.helpers import sign_in


async def test_searching_elodie_finds_elodie_whatever_the_accents(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    marker = uuid.uuid4().hex[:6]
    elodie = await factory.membre(org, prenom="Elodie", nom=f"Sarr{marker}")
    eloise = await factory.membre(org, prenom="Éloïse", nom=f"Sarr{marker}")
    await sign_in(client, secretaire, db)
    for q in ("élodie", "Élodie", "ELODIE"):
        page = await client.get("/console/membres", params={"q": f"{q} {marker}"})
        assert page.status_code == 200, page.text
        assert f"/membres/{elodie.id}" in page.text and f"/membres/{eloise.id}" not in page.text, q
        assert "1 membre<" in page.text
    both = await client.get("/console/membres", params={"q": f"sarr{marker}"})
    assert f"/membres/{elodie.id}" in both.text and f"/membres/{eloise.id}" in both.text and "2 membres" in both.text


async def test_the_dry_run_report_flags_shared_phones_line_by_line(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["SECRETAIRE", "MEMBRE"])
    csrf = await sign_in(client, secretaire, db)
    marker = uuid.uuid4().hex[:6]
    csv = (f"prénom;nom;téléphone\nAwa;Kane{marker};77 555 00 01\nBinta;Kane{marker};77 555 00 01\n"
           f"Ousmane;Sy{marker};77123\n").encode()
    report = await client.post("/console/import", data={"csrf": csrf},
                               files={"fichier": ("membres.csv", csv, "text/csv")})
    assert report.status_code == 200, report.text
    rows = re.findall(r'<tr class="([^"]*)"><td>(\d+)</td>.*?</tr>', report.text)
    assert rows == [("avertie", "2"), ("avertie", "3"), ("refus", "4")]
    assert "téléphone partagé avec la ligne 3" in report.text and "téléphone partagé avec la ligne 2" in report.text
    assert "2 lignes à vérifier" in report.text and "numéro invalide pour le Sénégal" in report.text
    contenu = re.search(r'name="contenu" value="([^"]+)"', report.text).group(1)
    done = await client.post("/console/import", data={"csrf": csrf, "contenu": contenu})
    assert done.status_code == 200 and "Import effectué" in done.text
    listed = await client.get("/console/membres", params={"q": f"kane{marker}"})
    assert "2 membres" in listed.text and "+221775550001" in listed.text
