"""What `deepresearch doctor` reports, and a first-run setup that writes `.env`."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Static

from tui.host.env_file import read_env_names, write_env_file
from tui.link.backend import Backend, ModelProfileRow
from tui.presentation.formatting import mask_secret
from tui.widgets.context_footer import ContextFooter

# (variable, label, placeholder, secret)
SETUP_FIELDS: tuple[tuple[str, str, str, bool], ...] = (
    (
        "OPENAI_API_KEY",
        "OpenAI (or compatible) API key",
        "sk-…  (leave empty for offline mode)",
        True,
    ),
    ("ORCHESTRATOR_BASE_URL", "LLM base URL", "http://127.0.0.1:8000/v1  (empty: OpenAI)", False),
    ("ORCHESTRATOR_MODEL", "Model", "gpt-4.1-mini, or offline", False),
    ("SEARCH_PROVIDER", "Search provider", "exa, local or none", False),
    ("EXA_API_KEY", "Exa API key", "only for the exa provider", True),
    ("DOCUMENTS_PATH", "Documents folder", "folder of md, txt, html, pdf for local search", False),
    ("BUDGET_USD", "Budget per session, USD", "e.g. 0.50 (0: no cap; needs MODEL_PRICES)", False),
    ("BUDGET_TOKENS", "Budget per session, tokens", "e.g. 200000 (0: no cap)", False),
)


class SettingsScreen(Screen[None]):
    class Saved(Message):
        """New settings are in the settings file and reloaded: the next run uses them."""

    CSS_PATH = Path(__file__).with_name("settings.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="settings.back"),
        Binding("ctrl+s", "save", "Save .env", id="settings.save"),
        Binding("f5", "probe", "Probe endpoints", id="settings.probe"),
    ]

    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self.backend = backend

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="settings-body"):
            doctor = Static(Text("Checking the configuration…", style="dim"), id="doctor-report")
            doctor.border_title = "Doctor"
            yield doctor
            profile = Static(Text("Reading the model profile…", style="dim"), id="model-profile")
            profile.border_title = "Model profile (read-only)"
            yield profile
            with VerticalScroll(id="setup-form") as form:
                form.border_title = "First-run setup"
                env_file = self.backend.env_file()
                present = read_env_names(env_file)
                yield Static(
                    Text(
                        f"Writes {env_file} (owner-only, mode 0600). Empty fields keep what is "
                        "already there. Keys are never shown."
                    ),
                    id="setup-help",
                )
                for name, label, placeholder, secret in SETUP_FIELDS:
                    shown = f"{label} — {mask_secret('x')}" if secret and name in present else label
                    yield Label(Text(f"{shown}  [{name}]"))
                    yield Input(placeholder=placeholder, password=secret, id=f"setup-{name}")
                with Horizontal(id="setup-buttons"):
                    yield Button("Save .env", id="save", variant="primary")
                yield Static(id="setup-result")
        yield ContextFooter(screen_keys_here=True)

    def on_mount(self) -> None:
        self.load_doctor(probe=False)
        self.load_profiles()

    @work(exclusive=True, group="profiles", name="model-profiles", thread=True)
    def load_profiles(self) -> None:
        try:
            text = profile_text(self.backend.model_profiles())
        except Exception as error:  # settings errors name the variable, never a secret
            text = Text(f"Could not read the model profile: {error}", style="red")
        self.app.call_from_thread(self.query_one("#model-profile", Static).update, text)

    @work(exclusive=True, group="doctor", name="doctor")
    async def load_doctor(self, probe: bool) -> None:
        report = self.query_one("#doctor-report", Static)
        try:
            summary = await self.backend.doctor(probe=probe)
        except Exception as error:  # settings errors name the variable, never a secret
            report.update(Text(f"The configuration has a problem: {error}", style="red"))
            return
        style = "" if summary.can_run else "yellow"
        report.update(Text(summary.text, style=style))
        if probe:  # a probe stores what it detected
            self.load_profiles()

    def setup_values(self) -> dict[str, str]:
        return {name: self.query_one(f"#setup-{name}", Input).value for name, *_ in SETUP_FIELDS}

    def action_save(self) -> None:
        values = self.setup_values()
        result = self.query_one("#setup-result", Static)
        if not any(value.strip() for value in values.values()):
            result.update(Text("Nothing to save: every field is empty.", style="yellow"))
            return
        try:
            path = write_env_file(self.backend.env_file(), values)
        except OSError as error:
            result.update(Text(f"Could not write the settings file: {error.strerror}", style="red"))
            return
        for name, *_ in SETUP_FIELDS:
            self.query_one(f"#setup-{name}", Input).clear()
        saved = ", ".join(name for name, value in values.items() if value.strip())
        result.update(Text(f"Saved {saved} to {path} (mode 0600).", style="green"))
        self.backend.reload_settings()
        self.post_message(self.Saved())
        self.load_doctor(probe=False)
        self.load_profiles()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()

    def action_probe(self) -> None:
        self.load_doctor(probe=True)

    def action_back(self) -> None:
        self.dismiss(None)


def profile_text(rows: list[ModelProfileRow]) -> Text:
    """Each model's profile, once for the roles that share a model and endpoint."""
    if not rows:
        return Text("The built-in offline model: no model server to profile.", style="dim")
    from datetime import datetime

    text = Text()
    shared: dict[tuple[str, str], list[ModelProfileRow]] = {}
    for row in rows:
        shared.setdefault((row.model, row.endpoint), []).append(row)
    for (model, endpoint), group in shared.items():
        row = group[0]
        roles = "every role" if len(group) == len(rows) else ", ".join(r.role for r in group)
        if text:
            text.append("\n")
        text.append(f"{model} at {endpoint}", style="bold")
        text.append(f"  ({roles})\n", style="dim")
        text.append(f"  context window {row.context_window:,} tokens · tool calling ")
        text.append(row.tool_calling, style="bold")
        text.append(" · structured output ")
        text.append(row.structured_output, style="bold")
        source = row.source
        if row.detected_at is not None:
            source += " " + datetime.fromtimestamp(row.detected_at).strftime("%Y-%m-%d %H:%M")
        text.append(f"\n  {source}", style="dim")
        if row.source == "not detected yet":
            text.append(" (F5 probes the endpoint; the first run does too)", style="dim")
    return text
