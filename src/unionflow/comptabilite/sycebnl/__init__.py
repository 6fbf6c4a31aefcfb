"""SYCEBNL presentation of the books (extension): account-to-heading mapping, statements with N and N−1, notes."""
