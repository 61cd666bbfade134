"""The registry keeps what each source showed the model, across checkpoints and merges."""

from __future__ import annotations

from engine.citations.registry import (
    MAX_PASSAGE_CHARS_PER_SOURCE,
    SourceRegistry,
    merge_registry_dicts,
)


def test_passages_are_kept_per_source_without_duplicates() -> None:
    registry = SourceRegistry()
    registry.add_document("functools.html", "functools", "The default maxsize is 128.")
    registry.add_document("functools.html", None, "The  default maxsize\nis 128.")
    registry.add_url("https://example.org/a", "A", "Page A says hello.")
    assert registry.passages("functools.html") == ["The default maxsize is 128."]
    assert registry.passages("https://example.org/a") == ["Page A says hello."]
    assert registry.passages("https://example.org/unknown") == []


def test_a_longer_text_replaces_the_passage_it_contains() -> None:
    registry = SourceRegistry()
    registry.add_document("json.html", "json", "ensure_ascii escapes non-ASCII.")
    registry.add_document(
        "json.html", "json", "If ensure_ascii is true, ensure_ascii escapes non-ASCII. More."
    )
    assert registry.passages("json.html") == [
        "If ensure_ascii is true, ensure_ascii escapes non-ASCII. More."
    ]


def test_passages_of_one_source_are_capped() -> None:
    registry = SourceRegistry()
    for n in range(5):
        registry.add_url("https://example.org/big", "Big", f"{n} " + "x" * 5000)
    kept = registry.passages("https://example.org/big")
    assert sum(len(p) for p in kept) == MAX_PASSAGE_CHARS_PER_SOURCE
    assert kept[0].startswith("0 ")


def test_a_passage_for_an_unregistered_locator_is_ignored() -> None:
    registry = SourceRegistry()
    registry.add_passage("https://never.example/", "text no tool returned")
    assert registry.passages("https://never.example/") == []
    assert len(registry) == 0


def test_passages_survive_the_checkpoint_form_and_the_reducer() -> None:
    left = SourceRegistry()
    left.add_document("a.html", "A", "alpha passage")
    right = SourceRegistry()
    right.add_document("a.html", "A", "another passage of a")
    right.add_url("https://b.example/", "B", "beta passage")
    merged = SourceRegistry.from_dict(merge_registry_dicts(left.to_dict(), right.to_dict()))
    assert merged.passages("a.html") == ["alpha passage", "another passage of a"]
    assert merged.passages("https://b.example/") == ["beta passage"]
    assert SourceRegistry.from_dict(merged.to_dict()).passages("a.html") == merged.passages(
        "a.html"
    )


def test_a_long_text_replacing_a_passage_it_contains_keeps_the_full_cap() -> None:
    registry = SourceRegistry()
    page = "word " * 1800  # 9,000 characters
    registry.add_url("https://example.org/p", "P", page)
    registry.add_url("https://example.org/p", "P", "Intro. " + page + " Outro.")
    kept = registry.passages("https://example.org/p")
    assert len(kept) == 1 and kept[0].startswith("Intro. word") and kept[0].endswith("Outro.")
