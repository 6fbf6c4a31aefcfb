"""Write the served OpenAPI document (``GET /openapi.json``) to a file, without a server or a database: the
contract linters of ``make contrat`` read it (tools/contrat/README.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from unionflow.app import create_app


def main(target: str) -> None:
    Path(target).write_text(json.dumps(create_app().openapi(), ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
