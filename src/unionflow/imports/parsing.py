"""Reading a members file as a secretary prepares it: CSV (``;`` or ``,``, UTF-8 with or without BOM, or
Windows-1252 from older Excel) or XLSX; French headers matched without case or accents ("Prénom", "prenom")."""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Mapping

from unionflow.core.errors import CaractereControle, RegleMetier
from unionflow.core.middleware import control_character

# Accepted header spellings → field.
COLONNES: Mapping[str, str] = {
    "numeromembre": "numero_membre", "numero": "numero_membre", "matricule": "numero_membre",
    "prenom": "prenom", "prenoms": "prenom", "nom": "nom", "email": "email", "mail": "email", "courriel": "email",
    "telephone": "telephone", "tel": "telephone", "portable": "telephone", "genre": "genre", "sexe": "genre",
    "datenaissance": "date_naissance", "datedenaissance": "date_naissance", "profession": "profession",
    "adresse": "adresse", "ville": "ville", "pays": "pays", "roles": "roles", "role": "roles",
}
MAX_LIGNES = 200_000
XLSX_MAGIC = b"PK\x03\x04"


def cle(entete: str) -> str:
    texte = unicodedata.normalize("NFKD", entete).encode("ascii", "ignore").decode().lower()
    return "".join(ch for ch in texte if ch.isalnum())


def _champs(entetes: list[str]) -> list[str | None]:
    champs = [COLONNES.get(cle(e)) for e in entetes]
    if "prenom" not in champs or "nom" not in champs:
        raise RegleMetier("Colonnes « prénom » et « nom » obligatoires dans la première ligne du fichier")
    if not {"email", "telephone", "numero_membre"} & set(champs):
        raise RegleMetier("Une colonne « email », « téléphone » ou « numéro membre » est nécessaire pour "
                           "reconnaître les membres déjà enregistrés")
    return champs


def decoder(contenu: bytes) -> str:
    for encodage in ("utf-8-sig", "cp1252"):
        try:
            return contenu.decode(encodage)
        except UnicodeDecodeError:
            continue
    raise RegleMetier("Encodage du fichier non reconnu (UTF-8 ou Windows-1252)")


def _lignes_csv(contenu: bytes) -> list[list[str]]:
    texte = decoder(contenu)
    premiere = texte.split("\n", 1)[0]
    delimiter = ";" if premiere.count(";") >= premiere.count(",") else ","
    return [row for row in csv.reader(io.StringIO(texte), delimiter=delimiter)]


def _cellule(value: object) -> str:
    if value is None:
        return ""
    if hasattr(value, "date") and hasattr(value, "isoformat"):
        return value.date().isoformat() if hasattr(value, "hour") else value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _lignes_xlsx(contenu: bytes) -> list[list[str]]:
    from openpyxl import load_workbook

    try:
        sheet = load_workbook(io.BytesIO(contenu), read_only=True, data_only=True).active
    except Exception as exc:  # openpyxl raises zip, XML and key errors for damaged files
        raise RegleMetier("Fichier XLSX illisible") from exc
    if sheet is None:
        raise RegleMetier("Le classeur ne contient aucune feuille")
    return [[_cellule(v) for v in row] for row in sheet.iter_rows(values_only=True)]


def _refuser_controles(lignes: list[list[str]]) -> None:
    """A control character in a cell (NUL and the other C0 but tab and line ends, DEL) refuses the file, as in a
    JSON body: PostgreSQL cannot store NUL, SQLite would, and no one types them (a damaged or binary file)."""
    for numero, valeurs in enumerate(lignes, start=1):
        for colonne, valeur in enumerate(valeurs, start=1):
            if (caractere := control_character(str(valeur))) is not None:
                raise CaractereControle(f"Caractère de contrôle interdit ({caractere}) ligne {numero}, "
                                        f"colonne {colonne} du fichier")


def lire(contenu: bytes) -> list[dict[str, str]]:
    """Rows as ``{field: text}`` (unknown columns ignored), blank rows skipped; line numbers follow the file."""
    lignes = _lignes_xlsx(contenu) if contenu.startswith(XLSX_MAGIC) else _lignes_csv(contenu)
    if not lignes:
        raise RegleMetier("Fichier vide")
    champs = _champs([str(e) for e in lignes[0]])
    if len(lignes) - 1 > MAX_LIGNES:
        raise RegleMetier(f"Au plus {MAX_LIGNES} lignes par fichier")
    _refuser_controles(lignes)
    resultat = []
    for valeurs in lignes[1:]:
        ligne = {c: v.strip() for c, v in zip(champs, valeurs, strict=False) if c is not None and v and v.strip()}
        resultat.append(ligne)
    return resultat
