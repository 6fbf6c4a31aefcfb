"""Closing the books, side by side: the lock date and the fiscal-year closing (exercice/), reopening a locked
period with a second person (deverrouillage/), the monthly closing and its pack (mensuelle/). Above comptabilite,
paiements, saisies and lcbft, which the monthly closing reads; the lock dates' table door stays in
comptabilite/verrouillage/ because posting reads it."""
