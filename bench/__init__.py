"""UnionFlow performance bench: data generator, load driver, reference apps, scenarios, report.

Run with ``make bench`` or ``python -m bench.run --help`` from the repository root.
"""

import sys
from pathlib import Path

# The bench measures this checkout: its own src/ wins over whatever an editable install points at.
_SRC = str(Path(__file__).resolve().parent.parent / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)
