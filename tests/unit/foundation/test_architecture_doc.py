"""Every file, folder and module the architecture and performance docs name exists, and the
architecture doc lists the import contracts pyproject.toml checks."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PYPROJECT = ROOT / "pyproject.toml"
# Documents that name the code by path: a move that leaves one of them behind fails here.
MAPS_OF_THE_CODE = ("architecture.md", "performance.md")

# A repository path starts at one of these folders and is not the tail of a longer path.
_PATH = re.compile(r"(?<![\w./-])(?:engine|tui|tests|bench|docs)/[\w./-]*")
# A dotted name such as `engine.nodes.deps` or `engine.platform_graph:make_graph`.
_DOTTED = re.compile(r"(?<![\w./-])(?:engine|tui)(?:\.\w+)+(?::\w+)?")


def named_paths(text: str) -> list[str]:
    return sorted({match.rstrip(".") for match in _PATH.findall(text)})


def named_modules(text: str) -> list[str]:
    return sorted(set(_DOTTED.findall(text)))


def _module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _top_level_names(source: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _module_exists(root: Path, dotted: str) -> bool:
    """The longest importable prefix is a module, and what follows is defined at its top."""
    parts = dotted.replace(":", ".").split(".")
    for length in range(len(parts), 1, -1):
        source = _module_file(root, parts[:length])
        if source is None:
            continue
        rest = parts[length:]
        return not rest or rest[0] in _top_level_names(source)
    return False


def missing_names(text: str, root: Path = ROOT) -> list[str]:
    missing = [path for path in named_paths(text) if not (root / path).exists()]
    missing += [name for name in named_modules(text) if not _module_exists(root, name)]
    return missing


@pytest.mark.parametrize("document", MAPS_OF_THE_CODE)
def test_every_path_and_module_the_document_names_exists(document: str) -> None:
    assert missing_names((ROOT / "docs" / document).read_text(encoding="utf-8")) == []


def test_the_doc_names_enough_paths_for_the_check_to_mean_something() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert len(named_paths(text)) >= 40
    assert "engine/nodes/section_writer.py" in named_paths(text)
    assert "engine.platform_graph:make_graph" in named_modules(text)


def test_a_moved_file_folder_module_or_attribute_is_reported() -> None:
    text = (
        "Runs `engine/run/runner.py` then `engine/nowhere.py`, reads `docs/gone/`, "
        "loads engine.platform_graph:make_graph and engine.platform_graph:no_such_thing, "
        "and imports engine.vanished.module."
    )
    assert missing_names(text) == [
        "docs/gone/",
        "engine/nowhere.py",
        "engine.platform_graph:no_such_thing",
        "engine.vanished.module",
    ]


def test_a_sentence_ending_after_a_path_is_not_part_of_it() -> None:
    assert named_paths("See engine/graph.py. Then tui/link/.") == ["engine/graph.py", "tui/link/"]


def contracts_checked(pyproject: str) -> list[str]:
    """The names of the import-linter contracts, in the order `lint-imports` checks them."""
    contracts = tomllib.loads(pyproject)["tool"]["importlinter"]["contracts"]
    return [" ".join(contract["name"].split()) for contract in contracts]


def contracts_listed(doc: str) -> list[str]:
    """The bold name starting each numbered item of the doc's "Import contracts" section."""
    section = doc.partition("\n## Import contracts\n")[2].partition("\n## ")[0]
    items = re.split(r"^\d+\. ", section, flags=re.MULTILINE)[1:]
    names = [re.match(r"\*\*(.+?)\*\*", item, re.DOTALL) for item in items]
    return [
        " ".join(name.group(1).split()) if name else item[:40]
        for name, item in zip(names, items, strict=True)
    ]


def test_the_doc_lists_every_import_contract_pyproject_checks() -> None:
    listed = contracts_listed(ARCHITECTURE.read_text(encoding="utf-8"))
    assert listed == contracts_checked(PYPROJECT.read_text(encoding="utf-8"))


def test_a_contract_left_out_of_the_doc_is_reported() -> None:
    checked = '[[tool.importlinter.contracts]]\nname = "One rule"\n' * 2
    checked = checked.replace("One rule", "Two rule", 1)
    doc = (
        "# Map\n\n## Import contracts\n\n1. **Two\n   rule**: a.\n2. **One rule**: b.\n\n## Next\n"
    )
    assert contracts_listed(doc) == contracts_checked(checked) == ["Two rule", "One rule"]
    assert contracts_listed(doc.replace("2. **One rule**: b.\n", "")) == ["Two rule"]
