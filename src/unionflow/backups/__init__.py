"""Sauvegardes: database backups, automatic schedule, restoration."""
