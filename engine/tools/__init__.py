"""The researchers' tools: web and local-document search, a safe fetcher, and think_tool.

Each module is usable on its own. Heavy libraries (httpx, trafilatura, exa-py, LangChain) are
imported by the modules that need them, never here, so importing this package stays cheap.
"""
