"""Citation verification, report sanitization and grounded evidence (pure, no network)."""
