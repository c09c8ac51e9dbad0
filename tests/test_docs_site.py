"""The documentation site covers the whole public API: every name in the ``__all__`` of every
public module of imbalance_stream has an entry (``::: path``) on an API page that mkdocs.yml puts
in its navigation. The check reads mkdocs.yml and the markdown sources; it builds nothing, so it
runs without the ``docs`` extra (CI builds the site with ``mkdocs build --strict``)."""

import importlib
import pathlib
import pkgutil
import re
import types

import imbalance_stream

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ENTRY = re.compile(r"^::: ([\w.]+)\s*$", flags=re.MULTILINE)
PAGE = re.compile(r"^\s*-\s+(?:[^:\n]+:\s+)?(\S+\.(?:md|ipynb))\s*$", flags=re.MULTILINE)
README = re.compile(r"^<!-- README: ?(.*?) -->$", flags=re.MULTILINE)


def _nav_pages():
    return PAGE.findall((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def _public_modules():
    yield imbalance_stream
    for info in pkgutil.walk_packages(imbalance_stream.__path__, "imbalance_stream."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            yield importlib.import_module(info.name)


def _resolve(path):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _entries():
    """``{path: object}`` of every ``::: path`` on a page of the navigation."""
    entries = {}
    for page in _nav_pages():
        if page.endswith(".md"):
            for path in ENTRY.findall((DOCS / page).read_text(encoding="utf-8")):
                entries[path] = _resolve(path)
    return entries


def test_every_page_of_the_navigation_exists():
    pages = _nav_pages()
    assert "api/index.md" in pages and "decisions.md" in pages
    missing = [page for page in pages if not (DOCS / page).exists()]
    assert not missing, f"mkdocs.yml names pages that do not exist: {missing}"


def test_every_public_name_has_an_api_entry():
    entries = _entries()
    by_identity = {id(obj) for obj in entries.values()}
    by_name = {}
    for path, obj in entries.items():
        by_name.setdefault(path.rpartition(".")[2], []).append(obj)
    missing = []
    for module in _public_modules():
        assert hasattr(module, "__all__"), f"{module.__name__} has no __all__"
        for name in module.__all__:
            obj = getattr(module, name)
            if f"{module.__name__}.{name}" in entries:
                continue
            if isinstance(obj, type | types.FunctionType | types.ModuleType):
                if id(obj) in by_identity:
                    continue
            elif any(other is obj for other in by_name.get(name, ())):
                continue  # a constant, documented under this name where it is defined
            missing.append(f"{module.__name__}.{name}")
    assert not missing, (
        "public names without an API entry: add a line '::: <path>' to a page under docs/api/ "
        f"(and the page to the nav of mkdocs.yml): {missing}"
    )


def test_every_readme_section_the_guide_includes_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    titles = set(re.findall(r"^## (.+?)\s*$", readme, flags=re.MULTILINE)) | {""}
    included = {
        (page, title.strip())
        for page in _nav_pages()
        if page.endswith(".md")
        for title in README.findall((DOCS / page).read_text(encoding="utf-8"))
    }
    assert included, "the user guide includes no README section: is the pattern right?"
    missing = sorted(item for item in included if item[1] not in titles)
    assert not missing, f"guide pages include README sections that do not exist: {missing}"
