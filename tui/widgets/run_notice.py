"""A one-line notice about the run: failed (with how to resume), cancelled, or finished."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class RunNotice(Static):
    """Hidden when there is nothing to say; text is never parsed as markup."""

    DEFAULT_CSS = """
    RunNotice { height: auto; display: none; padding: 0 1; }
    RunNotice.-shown { display: block; }
    RunNotice.-failed { background: $error 30%; color: $text; }
    RunNotice.-info { background: $primary 20%; }
    """

    def show_failure(self, error: str, *, resumable: bool) -> None:
        hint = (
            "Your session is saved: press ctrl+r to resume it (or reopen it from Sessions, F2)."
            if resumable
            else "This run cannot be resumed; ask the question again."
        )
        self.update(Text.assemble(("Run failed: ", "bold"), error, "\n", hint))
        self.set_classes("-shown -failed")

    def show_info(self, text: str) -> None:
        self.update(Text(text))
        self.set_classes("-shown -info")

    def hide(self) -> None:
        self.set_classes("")
        self.update("")
