"""`deepresearch eval`: research sessions scored against expected facts and sources."""
