from __future__ import annotations

from datetime import datetime

from engine.quick.prompt import QUICK_PROMPT_MARKER, render_quick_prompt, tools_info_from
from tests.unit.quick.quick_doubles import FakeTools

NOW = datetime(2031, 3, 14, 9, 26)


def test_prompt_carries_tools_date_documents_and_person() -> None:
    prompt = render_quick_prompt(
        tools_info=tools_info_from(FakeTools().tools()[:2]),
        now=NOW,
        available_documents=["handbook.pdf — the staff handbook"],
        collection_name="team docs",
        user_info={"name": "Ada", "role": ""},
    )
    assert prompt.startswith(QUICK_PROMPT_MARKER)
    assert "- search_web: Search the web for a query." in prompt
    assert "- fetch_url: Fetch a web page's text." in prompt
    assert "Current date: Friday, March 14, 2031" in prompt
    assert "- handbook.pdf — the staff handbook" in prompt
    assert "Knowledge collection: team docs" in prompt
    assert "- name: Ada" in prompt
    assert "role:" not in prompt  # empty values are left out
    # The direct answer first, cited by passage number; the engine lists the references.
    assert "Start with the direct answer" in prompt
    assert "## References" not in prompt


def test_query_rewriting_adds_the_current_year_when_web_search_is_available() -> None:
    prompt = render_quick_prompt(tools_info=tools_info_from(FakeTools().tools()), now=NOW)
    assert "## Query rewriting" in prompt
    assert "upcoming, next, latest" in prompt
    assert "(2031)" in prompt
    assert "shorthand" in prompt


def test_no_query_rewriting_without_web_search() -> None:
    fetch_only = [t for t in FakeTools().tools() if t.name == "fetch_url"]
    prompt = render_quick_prompt(tools_info=tools_info_from(fetch_only), now=NOW)
    assert "## Query rewriting" not in prompt
    assert "## Available documents" not in prompt


def test_long_document_lists_are_capped() -> None:
    documents = [f"doc{i}.md" for i in range(60)]
    prompt = render_quick_prompt(tools_info=[], now=NOW, available_documents=documents)
    assert "- doc49.md" in prompt
    assert "- doc50.md" not in prompt
    assert "… and 10 more" in prompt
    assert "No tools are available" in prompt
