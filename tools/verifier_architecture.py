"""Architecture checks run by `make layers` (part of `make test`), beside lint-imports and vulture.

1. Services and workflows never build SQL: outside the declared exceptions (docs/architecture.md, "Layers"), no
   module of src/unionflow imports a statement builder from SQLAlchemy (select, insert, update, delete, text,
   func, ...) nor calls ``execute`` / ``scalar(s)`` / ``stream`` on a session or a connection. Queries live in
   the owning area's repository (``repository.py`` or ``<sujet>_repository.py``).
2. Every top-level package of src/unionflow is named in a layer of the import-linter contract (pyproject.toml),
   so that a new area cannot escape the layers unnoticed.
3. Every class named ``*Repository`` derives, directly or through another repository of the package, from
   ``core.repository.ScopedRepository`` or ``SystemRepository``: a reader sees whether its rows are scoped.

Exit status 0 when all hold; otherwise each violation is printed as ``path:line: reason`` and the status is 1.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

RACINE = Path(__file__).resolve().parent.parent
PAQUET = RACINE / "src" / "unionflow"

# Names that build SQL. Types (Select, ColumnElement, ...) stay allowed: a service may pass a repository's
# statement along, it never builds one.
CONSTRUCTEURS = frozenset({
    "select", "insert", "update", "delete", "text", "func", "literal", "literal_column", "case", "and_", "or_",
    "not_", "exists", "union", "union_all", "bindparam", "column", "table", "tuple_", "null", "true", "false",
    "cast", "distinct", "desc", "asc", "over", "lambda_stmt", "values", "outerjoin", "join", "any_", "all_",
})
# Methods that send a statement, on a receiver whose name says it is a session or a connection.
EXECUTIONS = frozenset({"execute", "scalar", "scalars", "stream", "stream_scalars", "exec_driver_sql"})
RECEPTEURS = ("session", "conn")

# Declared exceptions, each with its reason in docs/architecture.md ("Layers"): paths relative to src/unionflow.
EXCEPTIONS_DOSSIERS = ("core/", "migrations/", "models/")
EXCEPTIONS_NOMS = ("repository.py", "lectures.py", "lecture.py")
EXCEPTIONS_FICHIERS = frozenset({
    "export/formats.py",  # streams, in batches, the statement the export's repository built
    "sauvegardes/engine.py",  # PRAGMA integrity_check on the backup file through sqlite3, not the application's tables
    "status/router.py",  # the SELECT 1 probe of GET /api/status on an autocommit connection
})


def _exempte(relatif: str) -> bool:
    nom = relatif.rsplit("/", 1)[-1]
    return (relatif.startswith(EXCEPTIONS_DOSSIERS) or nom in EXCEPTIONS_NOMS or nom.endswith("_repository.py")
            or relatif in EXCEPTIONS_FICHIERS)


def _recepteur(node: ast.expr) -> str:
    """The last name of ``a.b.session`` / ``conn`` / ``self.session``, lower case."""
    if isinstance(node, ast.Name):
        return node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    return ""


def violations_sql(source: str) -> Iterator[tuple[int, str]]:
    """(line, reason) of every SQL construction or execution in one module's source."""
    arbre = ast.parse(source)
    alias_sqlalchemy: set[str] = set()
    for node in ast.walk(arbre):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sqlalchemy":
            for nom in node.names:
                if nom.name in CONSTRUCTEURS:
                    yield node.lineno, f"importe {nom.name} de {node.module}"
        elif isinstance(node, ast.Import):
            for nom in node.names:
                if nom.name.split(".")[0] == "sqlalchemy":
                    alias_sqlalchemy.add(nom.asname or nom.name.split(".")[0])
        elif isinstance(node, ast.Attribute) and node.attr in CONSTRUCTEURS \
                and isinstance(node.value, ast.Name) and node.value.id in alias_sqlalchemy:
            yield node.lineno, f"construit du SQL ({node.value.id}.{node.attr})"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTIONS:
            recepteur = _recepteur(node.func.value)
            if any(r in recepteur for r in RECEPTEURS):
                yield node.lineno, f"exécute une requête ({recepteur}.{node.func.attr})"


def verifier_sql() -> list[str]:
    erreurs = []
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if _exempte(relatif):
            continue
        trouvees = list(violations_sql(chemin.read_text(encoding="utf-8")))
        erreurs += [f"src/unionflow/{relatif}:{ligne}: {raison} hors d'un repository" for ligne, raison in trouvees]
    return erreurs


def verifier_couches() -> list[str]:
    config = tomllib.loads((RACINE / "pyproject.toml").read_text(encoding="utf-8"))
    contrats = config["tool"]["importlinter"]["contracts"]
    couches = next(c for c in contrats if c["type"] == "layers")["layers"]
    nommes = {nom.strip() for couche in couches for nom in couche.replace("|", ":").split(":")}
    presents = {p.stem for p in PAQUET.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    return [f"src/unionflow/{nom}: absent des couches de pyproject.toml ([tool.importlinter])"
            for nom in sorted(presents - nommes)]


BASES_REPOSITORY = frozenset({"ScopedRepository", "SystemRepository"})


def _nom_base(node: ast.expr) -> str:
    """``ScopedRepository`` of ``ScopedRepository[Model]``, ``repository.SystemRepository``, or a plain name."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def classes(source: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, name, base names) of every class of a module (bases are followed through any class)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            yield node.lineno, node.name, [_nom_base(b) for b in node.bases]


def violations_bases(trouvees: list[tuple[str, str, list[str]]]) -> list[str]:
    """The classes named ``*Repository`` among ``trouvees`` (where, name, bases) that reach neither base through
    their parents (a parent named like a class of the package is followed through every class of that name)."""
    bases_de: dict[str, list[list[str]]] = {}
    for _, nom, bases in trouvees:
        bases_de.setdefault(nom, []).append(bases)

    def derive(nom: str, vus: frozenset[str]) -> bool:
        if nom in BASES_REPOSITORY:
            return True
        if nom in vus:
            return False
        return any(derive(base, vus | {nom}) for bases in bases_de.get(nom, []) for base in bases)

    return [f"{ou}: {nom} ne dérive ni de ScopedRepository ni de SystemRepository (core/repository.py)"
            for ou, nom, bases in trouvees
            if nom.endswith("Repository") and not any(derive(base, frozenset({nom})) for base in bases)]


def verifier_repositories() -> list[str]:
    trouvees = []
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if relatif == "core/repository.py":
            continue  # the bases themselves and their private parent
        trouvees += [(f"src/unionflow/{relatif}:{ligne}", nom, bases)
                     for ligne, nom, bases in classes(chemin.read_text(encoding="utf-8"))]
    return violations_bases(trouvees)


def main() -> int:
    erreurs = verifier_sql() + verifier_couches() + verifier_repositories()
    for erreur in erreurs:
        print(erreur)
    if erreurs:
        print(f"{len(erreurs)} violation(s) des règles d'architecture (docs/architecture.md, « Couches »)")
        return 1
    print("Architecture: pas de SQL hors des repositories, chaque paquet dans une couche, "
          "chaque repository sur une base")
    return 0


if __name__ == "__main__":
    sys.exit(main())
