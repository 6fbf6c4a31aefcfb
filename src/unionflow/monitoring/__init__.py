"""Logs & Monitoring: system alerts measured against configured thresholds."""
