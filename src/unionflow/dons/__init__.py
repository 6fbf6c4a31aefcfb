"""Register of donations and bequests (sealed by a hash chain) and earmarked funds (docs/dons.md)."""
