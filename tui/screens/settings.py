"""What `deepresearch doctor` reports, and a first-run setup that writes `.env`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Static

from tui.host.env_file import read_env_names, read_env_values, write_env_file
from tui.link.backend import Backend, ModelProfileRow
from tui.view.settings_form import SetupField, settings_change
from tui.widgets.context_footer import ContextFooter

SETUP_FIELDS: tuple[SetupField, ...] = (
    SetupField(
        "OPENAI_API_KEY",
        "OpenAI (or compatible) API key",
        "sk-…  (leave empty for offline mode)",
        secret=True,
    ),
    SetupField(
        "ORCHESTRATOR_BASE_URL",
        "LLM base URL",
        "http://127.0.0.1:8000/v1  (empty: OpenAI)",
        secret=False,
    ),
    SetupField("ORCHESTRATOR_MODEL", "Model", "gpt-4.1-mini, or offline", secret=False),
    SetupField("SEARCH_PROVIDER", "Search provider", "exa, local or none", secret=False),
    SetupField("EXA_API_KEY", "Exa API key", "only for the exa provider", secret=True),
    SetupField(
        "DOCUMENTS_PATH",
        "Documents folder",
        "folder of md, txt, html, pdf for local search",
        secret=False,
    ),
    SetupField(
        "BUDGET_USD",
        "Budget per session, USD",
        "e.g. 0.50 (0: no cap; needs MODEL_PRICES)",
        secret=False,
    ),
    SetupField(
        "BUDGET_TOKENS", "Budget per session, tokens", "e.g. 200000 (0: no cap)", secret=False
    ),
)
_FIELDS_BY_NAME = {field.name: field for field in SETUP_FIELDS}


class SettingsScreen(Screen[None]):
    class Saved(Message):
        """New settings are in the settings file and reloaded: the next run uses them."""

    # Its stylesheet loads with the app's (tui/app.py), so opening it restyles nothing else.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="settings.back"),
        Binding("ctrl+s", "save", "Save .env", id="settings.save"),
        Binding("f5", "probe", "Probe endpoints", id="settings.probe"),
        Binding("f8", "clear_field", "Clear field", id="settings.clear_field"),
    ]

    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self.backend = backend
        # Fields cleared with F8 since the last save: saved as removals.
        self.cleared: set[str] = set()
        # What the file held when last read: non-secret values, and every name it assigns.
        self.saved_values: dict[str, str] = {}
        self.present: set[str] = set()
        # What the last save wrote, in words, that the endpoint check's verdict follows.
        self.saved_line = Text()

    def compose(self) -> ComposeResult:
        # Above the scrolling body, so what ctrl+s did is seen at any terminal size.
        yield Static(id="setup-result")
        with VerticalScroll(id="settings-body"):
            doctor = Static(Text("Checking the configuration…", style="dim"), id="doctor-report")
            doctor.border_title = "Doctor"
            yield doctor
            profile = Static(Text("Reading the model profile…", style="dim"), id="model-profile")
            profile.border_title = "Model profile (read-only)"
            yield profile
            with VerticalScroll(id="setup-form") as form:
                form.border_title = "First-run setup"
                yield Static(
                    Text(
                        f"Writes {self.backend.env_file()} (owner-only, mode 0600). Fields show "
                        "the saved values; keys only say whether one is set. An empty key "
                        "field keeps the saved key; F8 clears the focused field, and ctrl+s "
                        "then removes it from the file."
                    ),
                    id="setup-help",
                )
                for field in SETUP_FIELDS:
                    yield Label(id=f"label-{field.name}")
                    yield Input(
                        placeholder=field.placeholder,
                        password=field.secret,
                        id=f"setup-{field.name}",
                    )
                with Horizontal(id="setup-buttons"):
                    yield Button("Save .env", id="save", variant="primary")
        yield ContextFooter(screen_keys_here=True)

    def on_mount(self) -> None:
        self.query_one("#setup-result", Static).display = False
        self.show_saved_settings()
        self.load_doctor(probe=False)
        self.load_profiles()

    def show_saved_settings(self) -> None:
        """Fill the form from the settings file: values for settings, set or not for keys."""
        env_file = self.backend.env_file()
        self.present = read_env_names(env_file)
        shown = [field.name for field in SETUP_FIELDS if not field.secret]
        self.saved_values = read_env_values(env_file, shown)
        self.cleared.clear()
        for field in SETUP_FIELDS:
            entry = self.query_one(f"#setup-{field.name}", Input)
            # A key never comes back on screen; a setting shows what is saved.
            entry.value = "" if field.secret else self.saved_values.get(field.name, "")
            self.show_label(field)

    def show_label(self, field: SetupField) -> None:
        text = Text(f"{field.label}  [{field.name}]")
        if field.name in self.cleared:
            text.append("  cleared: ctrl+s removes it", style="yellow")
        elif field.secret:
            state = "set" if field.name in self.present else "not set"
            text.append(f"  {state}", style="bold" if state == "set" else "dim")
        self.query_one(f"#label-{field.name}", Label).update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("setup-")
        if event.value and name in self.cleared:  # typed again: a value, no longer a removal
            self.cleared.discard(name)
            self.show_label(_FIELDS_BY_NAME[name])

    def action_clear_field(self) -> None:
        focused = self.focused
        name = (focused.id or "").removeprefix("setup-") if isinstance(focused, Input) else ""
        field = _FIELDS_BY_NAME.get(name)
        if field is None or not isinstance(focused, Input):
            self.notify("Focus a setup field to clear it.", severity="warning")
            return
        focused.value = ""
        if field.name not in self.present:
            self.notify(f"{field.name} is not in the settings file.")
            return
        self.cleared.add(field.name)
        self.show_label(field)

    @work(exclusive=True, group="profiles", name="model-profiles", thread=True)
    def load_profiles(self) -> None:
        try:
            text = profile_text(self.backend.model_profiles())
        except Exception as error:  # settings errors name the variable, never a secret
            text = Text(f"Could not read the model profile: {error}", style="red")
        self.app.call_from_thread(self.query_one("#model-profile", Static).update, text)

    @work(exclusive=True, group="doctor", name="doctor")
    async def load_doctor(self, probe: bool, after_save: bool = False) -> None:
        report = self.query_one("#doctor-report", Static)
        if probe:
            report.update(Text("Checking the endpoints…", style="dim"))
        try:
            summary = await self.backend.doctor(probe=probe)
        except Exception as error:  # settings errors name the variable, never a secret
            report.update(Text(f"The configuration has a problem: {error}", style="red"))
            return
        style = "" if summary.can_run else "yellow"
        report.update(Text(summary.text, style=style))
        if after_save:
            # The form is in view, the Doctor panel above it may not be: say its verdict here.
            verdict = self.saved_line.copy()
            if summary.can_run:
                verdict.append("  Checked: a session can run.", style="green")
            else:
                verdict.append(
                    "  Checked: a session cannot run; see the Doctor panel (lines marked !!).",
                    style="bold yellow",
                )
            self.show_result(verdict)
        if probe:  # a probe stores what it detected
            self.load_profiles()

    def setup_values(self) -> dict[str, str]:
        return {
            field.name: self.query_one(f"#setup-{field.name}", Input).value
            for field in SETUP_FIELDS
        }

    def show_result(self, text: Text) -> None:
        result = self.query_one("#setup-result", Static)
        result.update(text)
        result.display = True

    def action_save(self) -> None:
        change = settings_change(
            SETUP_FIELDS, self.setup_values(), self.saved_values, self.present, self.cleared
        )
        if change.empty:
            self.show_result(Text("Nothing to save: no field changed.", style="yellow"))
            return
        try:
            path = write_env_file(self.backend.env_file(), change.updates, change.removals)
        except OSError as error:
            self.show_result(
                Text(f"Could not write the settings file: {error.strerror}", style="red")
            )
            return
        self.show_saved_settings()
        self.saved_line = Text(change.summary(path), style="green")
        self.show_result(self.saved_line)
        self.backend.reload_settings()
        self.post_message(self.Saved())
        # The saved endpoint is checked now: the report must not call it fine until F5.
        self.load_doctor(probe=True, after_save=True)
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
