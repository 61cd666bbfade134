"""The quick path: one bounded `agent ⇄ tools` loop that answers simple questions with citations.

Kept import-light on purpose (no LangChain or LangGraph here): import `engine.quick.graph`
for `build_quick_graph` when the engine stack is being loaded anyway.
"""
