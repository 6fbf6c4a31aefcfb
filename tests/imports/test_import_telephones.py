"""Families share phones: two lines with one phone, or a line with a registered member's phone, are imported and
flagged (``avertissements``), never refused as duplicates; a phone alone identifies no one. A national number that
cannot be valid refuses its line with the country's rule."""

from __future__ import annotations

from sqlalchemy import func, select

from tests.imports.test_import_membres import _csv, _post, _setup
from unionflow.models import Membre


async def test_shared_phones_are_allowed_and_flagged(client, factory, db):
    org, secretary = await _setup(factory)
    pere = await factory.membre(org, prenom="Mamadou", nom="Kane", telephone="+221775550000")
    contenu = _csv([
        "Awa;Kane;;77 555 00 00;F;;;",                      # shares the father's phone
        "Binta;Kane;;77 555 00 00;F;;;",                    # and her sister's line
        "Mamadou;KANÉ;;+221775550000;M;;Louga;",            # the father himself (same name): updated
        "Awa;Kane;;775550000;F;;;",                         # the same person twice: a duplicate
        "Ousmane;Sy;;77123;M;;;",                           # "77123" is no Senegalese number
    ])
    dry = await _post(client, secretary.headers, org, contenu, True)
    assert dry.status_code == 200, dry.text
    lignes = {lg["ligne"]: lg for lg in dry.json()["lignes"]}
    assert {n: lg["action"] for n, lg in lignes.items()} == {
        2: "CREER", 3: "CREER", 4: "METTRE_A_JOUR", 5: "REFUSER", 6: "REFUSER"}
    assert lignes[2]["avertissements"] == [
        "téléphone partagé avec les lignes 3, 4 et 5", f"téléphone partagé avec Mamadou Kane ({pere.numero_membre})"]
    assert "téléphone partagé avec les lignes 2, 4 et 5" in lignes[3]["avertissements"]
    assert lignes[4]["motifs"] == ["nom modifié", "genre modifié", "ville modifiée"]
    assert lignes[4]["numeroMembre"] == pere.numero_membre
    assert lignes[4]["avertissements"] == ["téléphone partagé avec les lignes 2, 3 et 5"]
    assert lignes[5]["motifs"] == ["doublon de la ligne 2 (téléphone et nom)"]
    assert lignes[6]["motifs"][0].startswith("téléphone: numéro invalide pour le Sénégal: 9 chiffres "
                                             "commençant par 7 ou 3 attendus après +221, 5 reçus")

    real = await _post(client, secretary.headers, org, contenu, False)
    assert [(lg["ligne"], lg["action"], lg["avertissements"]) for lg in real.json()["lignes"]] == [
        (lg["ligne"], lg["action"], lg["avertissements"]) for lg in dry.json()["lignes"]]
    partage = select(func.count()).select_from(Membre).where(Membre.telephone == "+221775550000")
    assert (await db.execute(partage)).scalar_one() == 3
    # Re-importing recognises each person by phone and name: nothing new, still flagged.
    again = (await _post(client, secretary.headers, org, contenu, False)).json()
    assert (again["crees"], again["inchanges"]) == (0, 3)
    assert all(lg["avertissements"] for lg in again["lignes"] if lg["action"] == "INCHANGE")
    assert (await db.execute(partage)).scalar_one() == 3
