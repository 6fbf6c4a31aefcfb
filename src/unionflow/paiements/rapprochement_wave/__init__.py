"""Wave reconciliation: Wave's statement against the money we booked (payments, payouts)."""
