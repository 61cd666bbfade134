"""deepresearch engine: LangGraph research runtime with no UI dependencies."""
