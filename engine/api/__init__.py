"""`deepresearch serve`: the engine over HTTP (REST + Server-Sent Events)."""
