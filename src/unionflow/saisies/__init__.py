"""Manual entries (saisies): what a person types into the books by hand, under four eyes when it moves money."""
