"""Names and documentation checks of `make layers` (docs/architecture.md, « Names »).

- One class name per concept: two classes of src/unionflow with the same name fail (a reader, a grep and the
  OpenAPI's component names would confuse them), except the names the published interface imposes.
- docs/architecture.md names only what exists: every path it writes between backquotes, and every file or folder
  of its « Layout » tree, must exist in the repository.
- No "issue N" in the sources (code, docstrings, OpenAPI texts, templates): a reader or an API client cannot open
  our tracker; the reason belongs in docs/decisions.md, whose headings may keep their issue numbers.

Run: ``python tools/verifier_noms.py`` (exit 1 on a violation, each printed).
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

RACINE = Path(__file__).resolve().parent.parent
PAQUET = RACINE / "src" / "unionflow"
ARCHITECTURE = RACINE / "docs" / "architecture.md"

# The published interface (spec/union-management-api.md, « Schemas ») names the body of event create and update
# « Evenement », as the ORM model is named: the schema keeps the spec's name.
NOMS_IMPOSES = {"Evenement": "spec: schema « Evenement » (body of event create and update)"}


def classes_du_paquet() -> dict[str, list[str]]:
    trouvees: dict[str, list[str]] = defaultdict(list)
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if relatif.startswith("migrations/versions/"):
            continue
        for node in ast.walk(ast.parse(chemin.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                trouvees[node.name].append(f"{relatif}:{node.lineno}")
    return trouvees


def verifier_classes(trouvees: dict[str, list[str]]) -> list[str]:
    return [f"classe « {nom} » définie {len(lieux)} fois: {', '.join(lieux)} (un nom par concept)"
            for nom, lieux in sorted(trouvees.items()) if len(lieux) > 1 and nom not in NOMS_IMPOSES]


_CHEMIN = re.compile(r"`([A-Za-z0-9_./-]+(?:/|\.py|\.md|\.toml|\.json|\.yaml|\.ini|\.html))`")


def chemins_cites(texte: str) -> Iterator[str]:
    """Paths written between backquotes (templates such as ``<area>/router.py`` hold ``<`` and are skipped)."""
    for match in _CHEMIN.finditer(texte):
        yield match.group(1)


def chemins_de_l_arbre(texte: str) -> Iterator[str]:
    """Files and folders of the « Layout » tree: an entry is the first word of a line, nested by indentation
    (two spaces per level) under the folders above it; a `<area>/` line is a template and names nothing."""
    bloc = texte.split("## Layout", 1)[-1].split("```", 2)[1] if "## Layout" in texte else ""
    pile: list[tuple[int, str]] = []
    for ligne in bloc.splitlines():
        if not ligne.strip():
            continue
        retrait = len(ligne) - len(ligne.lstrip(" "))
        if retrait > 8:
            continue  # the description column (a wrapped line), not an entry
        mot = ligne.split()[0]
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/?", mot) or not (mot.endswith("/") or "." in mot):
            continue
        pile = [(r, n) for r, n in pile if r < retrait]
        chemin = "".join(n for _, n in pile) + mot
        if mot.endswith("/"):
            pile.append((retrait, mot))
        yield chemin


def _existe(chemin: str) -> bool:
    """A path from the root, from src/, from the package or from docs/; a bare file name (a kind of module, as
    ``lectures.py``) names at least one file of the package, tools or tests."""
    bases = (RACINE, RACINE / "src", PAQUET, RACINE / "docs")
    if any((base / chemin.rstrip("/")).exists() for base in bases):
        return True
    if "/" in chemin.rstrip("/"):
        # A path under a folder of the package (``cotisations/lecture.py``) may be written from any area.
        return any(PAQUET.rglob(chemin.rstrip("/")))
    return any(any((RACINE / d).rglob(chemin)) for d in ("src", "tools", "tests"))


def verifier_docs(texte: str) -> list[str]:
    cites = set(chemins_cites(texte)) | set(chemins_de_l_arbre(texte))
    return [f"docs/architecture.md nomme « {c} », qui n'existe pas" for c in sorted(cites) if not _existe(c)]


_ISSUE = re.compile(r"\bissues? \d+", re.IGNORECASE)


def verifier_issues() -> list[str]:
    erreurs = []
    for chemin in sorted(PAQUET.rglob("*")):
        if chemin.suffix not in {".py", ".html", ".json"} or not chemin.is_file():
            continue
        for numero, ligne in enumerate(chemin.read_text(encoding="utf-8").splitlines(), 1):
            if (trouvee := _ISSUE.search(ligne)) is not None:
                erreurs.append(f"src/unionflow/{chemin.relative_to(PAQUET).as_posix()}:{numero}: « "
                               f"{trouvee.group(0)} » — la raison va dans docs/decisions.md")
    return erreurs


def main() -> int:
    erreurs = (verifier_classes(classes_du_paquet()) + verifier_docs(ARCHITECTURE.read_text(encoding="utf-8"))
               + verifier_issues())
    for erreur in erreurs:
        print(erreur)
    if erreurs:
        print(f"{len(erreurs)} violation(s) des règles de nommage (docs/architecture.md, « Names »)")
        return 1
    print("Noms: une classe par nom, docs/architecture.md ne nomme que ce qui existe, aucune « issue N » dans src/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
