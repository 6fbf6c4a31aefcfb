"""The year-end books and the general-assembly pack of an organisation (extension): the livre d'inventaire and
the pack the bureau presents to the assembly (statements, notes, activity figures, signatures)."""
