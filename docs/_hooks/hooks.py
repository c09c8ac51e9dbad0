"""MkDocs hooks of the documentation site.

* ``<!-- README: Section title -->`` on a line of its own is replaced by that ``##`` section of
  README.md (``<!-- README: -->``: the text before the first section), so the user guide and the
  README say the same thing; a section that does not exist stops the build.
  ``<!-- FILE: benchmarks/README.md -->`` is replaced by that file of the repository, less its
  title.
* The decision ids (``D-ACOG-2``) of every page, docstrings included, link to their entries in
  docs/decisions.md, whose entries get the ids as anchors.
"""

from __future__ import annotations

import pathlib
import posixpath
import re

from mkdocs.exceptions import PluginError

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- (README|FILE): ?(.*?) -->$", flags=re.MULTILINE)
DECISION = re.compile(r"\bD-(?:KOIL|DCIL|ACOG|DR|LASVM)-\d+\b")
ENTRY = re.compile(r"<p><strong>(D-[A-Z]+-\d+)\.</strong>")
# text between tags; the content of links, code blocks and headings is left alone
SKIP = re.compile(r"<(a|pre|h[1-6])\b.*?</\1>|<[^>]+>", flags=re.DOTALL)
DECISIONS_PAGE = "decisions.md"


def readme_sections(text: str) -> dict[str, str]:
    """README.md's ``##`` sections by title; ``""`` is the text before the first."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    head, rest = parts[0], parts[1:]
    sections = {"": head.split("\n", 1)[1] if head.startswith("# ") else head}
    for title, body in zip(rest[::2], rest[1::2]):
        sections[title.strip()] = body
    return sections


def _link_paths(markdown: str, page_uri: str) -> str:
    """README's mentions of the decisions page and of the notebooks, as links."""
    here = posixpath.dirname(page_uri)

    def link(match: re.Match[str]) -> str:
        path = match.group(1)
        target = path.removeprefix("docs/")
        return f"[`{path}`]({posixpath.relpath(target, here or '.')})"

    return re.sub(r"`(docs/decisions\.md|notebooks/\w+\.ipynb)`", link, markdown)


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    sections = readme_sections((ROOT / "README.md").read_text(encoding="utf-8"))

    def include(match: re.Match[str]) -> str:
        kind, name = match.group(1), match.group(2).strip()
        if kind == "FILE":
            text = (ROOT / name).read_text(encoding="utf-8")
            body = text.split("\n", 1)[1] if text.startswith("# ") else text
        elif name in sections:
            body = sections[name]
        else:
            raise PluginError(f"{page.file.src_uri}: README.md has no section '## {name}'")
        return _link_paths(body.strip("\n"), page.file.src_uri)

    return MARKER.sub(include, markdown)


def on_page_content(html, page, config, files):
    if page.file.src_uri == DECISIONS_PAGE:
        html = ENTRY.sub(r'<p id="\1"><strong>\1.</strong>', html)
        target = ""
    else:
        decisions = files.get_file_from_path(DECISIONS_PAGE)
        if decisions is None:
            return html
        target = decisions.url_relative_to(page.file)

    def link_text(text: str) -> str:
        return DECISION.sub(lambda m: f'<a href="{target}#{m.group(0)}">{m.group(0)}</a>', text)

    out, last = [], 0
    for match in SKIP.finditer(html):
        out.append(link_text(html[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(link_text(html[last:]))
    return "".join(out)
