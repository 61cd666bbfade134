"""A model server found on this machine is offered after the first frame; F4 takes it by
writing the settings file as the setup form does; nothing is offered unless asked to look."""

from __future__ import annotations

from pathlib import Path

from tests.pilot.fakes import FakeBackend, ScriptedDriver, full_story
from tests.pilot.steps import wait_until
from tui.app import DeepResearchApp
from tui.link.backend import LocalModelOffer

OFFER = LocalModelOffer(
    description="127.0.0.1:11434 (Ollama's usual port): 1 model (qwen2.5:7b)",
    model="qwen2.5:7b",
    settings={
        "ORCHESTRATOR_BASE_URL": "http://127.0.0.1:11434/v1",
        "ORCHESTRATOR_MODEL": "qwen2.5:7b",
    },
)


def notices(app: DeepResearchApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_a_found_server_is_offered_and_f4_saves_it(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("# mine\nSEARCH_PROVIDER=local\n", encoding="utf-8")
    backend = FakeBackend(ScriptedDriver(full_story()), env_path=env, local_offers=[OFFER])
    app = DeepResearchApp(backend, clock=lambda: 100.0, discover_local_models=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_until(pilot, lambda: app.local_offer is not None)
        [said] = [n for n in notices(app) if "local model server" in n]
        assert "qwen2.5:7b" in said and "F4" in said and "Nothing was sent" in said
        assert env.read_text(encoding="utf-8") == "# mine\nSEARCH_PROVIDER=local\n"  # not yet
        await pilot.press("f4")
        await pilot.pause()
        assert env.read_text(encoding="utf-8").splitlines() == [
            "# mine",
            "SEARCH_PROVIDER=local",
            "ORCHESTRATOR_BASE_URL=http://127.0.0.1:11434/v1",
            "ORCHESTRATOR_MODEL=qwen2.5:7b",
        ]
        assert env.stat().st_mode & 0o777 == 0o600
        assert backend.reloads == 1
        assert app.local_offer is None and not app.check_action("use_local_model", ())
        assert any("Saved ORCHESTRATOR_BASE_URL" in n and str(env) in n for n in notices(app))


async def test_nothing_is_looked_for_unless_the_app_is_asked_to(tmp_path: Path) -> None:
    backend = FakeBackend(
        ScriptedDriver(full_story()), env_path=tmp_path / ".env", local_offers=[OFFER]
    )
    app = DeepResearchApp(backend, clock=lambda: 100.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("f4")
        await pilot.pause()
    assert backend.offers_asked == 0 and app.local_offer is None
    assert not (tmp_path / ".env").exists()


async def test_no_server_found_offers_nothing(tmp_path: Path) -> None:
    backend = FakeBackend(ScriptedDriver(full_story()), env_path=tmp_path / ".env")
    app = DeepResearchApp(backend, clock=lambda: 100.0, discover_local_models=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_until(pilot, lambda: backend.offers_asked == 1)
        await pilot.pause()
        assert not app.check_action("use_local_model", ())
        assert not any("local model server" in n for n in notices(app))
