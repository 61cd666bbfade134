"""The boundary to real chat models: profiles, reply normalization and the adapting client.

Everything a real model emits is turned into canonical LangChain messages here, so nothing
downstream re-parses model text. Nothing heavy is imported by this package's `__init__`.
"""
