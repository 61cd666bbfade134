"""The session index's table, the same word for word in SQLite and PostgreSQL."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS deepresearch_sessions (
    session_id TEXT PRIMARY KEY,
    question TEXT NOT NULL,
    mode TEXT NOT NULL DEFAULT 'auto',
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    report_path TEXT
)
"""

ROWS_QUERY = (
    "SELECT session_id, question, created_at, updated_at, status, mode, report_path"
    " FROM deepresearch_sessions ORDER BY updated_at DESC, created_at DESC"
)
