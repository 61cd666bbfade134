"""Middleware around every model call, one concern per module.

Each concern is a plain function (usable around the hand-built graph nodes' model calls) and an
`AgentMiddleware` for the deepagents researchers. Nothing heavy is imported here.
"""
