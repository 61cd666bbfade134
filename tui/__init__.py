"""deepresearch terminal UI."""
