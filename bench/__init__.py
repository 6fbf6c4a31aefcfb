"""UnionFlow performance bench: data generator, load driver, reference apps, scenarios, report.

Run with ``make bench`` or ``python -m bench.run --help`` from the repository root.
"""
