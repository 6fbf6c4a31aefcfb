"""UnionFlow: back end for unions of organisations."""

__version__ = "1.0.0"
