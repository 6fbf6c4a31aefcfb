"""Dead code check run by `make layers` (part of `make test`): vulture over src/unionflow and tools/.

Reported: functions, methods, classes, properties, imports and unreachable code at 60 % confidence or more (what
vulture says when nothing in the sources names it), and variables and attributes only at 100 %. At 60 % the
latter are pydantic fields, ORM columns and attributes set for SQLAlchemy to persist: read by the frameworks, not
by name. Names a framework calls are listed in tools/vulture_whitelist.py; decorated routes, validators,
SQLAlchemy compilers and event hooks are skipped by their decorator."""

from __future__ import annotations

import sys
from pathlib import Path

import vulture

RACINE = Path(__file__).resolve().parent.parent
CONFIANCE = 60
IGNORER_DECORATEURS = [
    "@router.*", "@*.get", "@*.post", "@*.put", "@*.patch", "@*.delete",  # FastAPI routes
    "@*validator", "@computed_field", "@field_serializer", "@model_serializer",  # pydantic
    "@compiles", "@*.listens_for",  # SQLAlchemy compilers and event hooks
    "@page", "@public",  # console pages, registered by their decorator (console/pages.py)
]
TOUJOURS = {"variable", "attribute"}  # reported at 100 % only (see above)


def main() -> int:
    analyse = vulture.Vulture(ignore_decorators=IGNORER_DECORATEURS)
    analyse.scavenge([str(RACINE / "src" / "unionflow"), str(RACINE / "tools")])
    morts = [item for item in analyse.get_unused_code(min_confidence=CONFIANCE)
             if item.typ not in TOUJOURS or item.confidence >= 100]
    for item in morts:
        print(item.get_report(add_size=False))
    if morts:
        print(f"{len(morts)} nom(s) sans usage: supprimez-les, ou nommez l'appelant dans tools/vulture_whitelist.py")
        return 1
    print("Code mort: aucun")
    return 0


if __name__ == "__main__":
    sys.exit(main())
