"""The documentation stands on its own: every decision id the code cites has its entry in
docs/decisions.md, and no docstring, README, CONTRIBUTING or page of the documentation site
(docs/) points at documents outside the repository (the working notes the project was built
from)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECISION = re.compile(r"\bD-(?:KOIL|DCIL|ACOG|DR|LASVM)-\d+\b")
OUTSIDE = re.compile(
    r"\bdigest\b(?!\.)|\.\./shared|\bspec (?:section|§|[0-9]|[A-Z][0-9])|\bspec U\d+"
)
# The paper protocols are moving out of the package (reproduce/); their text is revised there.
MOVING = ("koil_protocol.py", "acog_protocol.py", "dcil_protocol.py")


def _sources():
    for path in sorted((ROOT / "imbalance_stream").rglob("*.py")):
        if path.name not in MOVING and "protocols" not in path.parts:
            yield path
    yield from (p for p in sorted((ROOT / "tests").glob("test_*.py")) if "protocol" not in p.name)
    for name in ("README.md", "CONTRIBUTING.md", "benchmarks/README.md", "mkdocs.yml"):
        yield ROOT / name
    # the documentation site: its pages (decisions.md included) and its build hooks
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield from sorted((ROOT / "docs" / "_hooks").glob("*.py"))


def test_every_cited_decision_has_an_entry():
    page = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    heads = re.findall(r"^\*\*(D-[A-Z]+-\d+)\.", page, flags=re.MULTILINE)
    entries = set(heads)
    assert len(entries) == len(heads)  # no id twice
    cited = {
        (match, path.relative_to(ROOT).as_posix())
        for path in _sources()
        for match in DECISION.findall(path.read_text(encoding="utf-8"))
    }
    assert cited, "the code cites no decision: is the pattern right?"
    missing = sorted(item for item in cited if item[0] not in entries)
    assert not missing, f"decision ids cited but not in docs/decisions.md: {missing}"


def _lines(path):
    text = path.read_text(encoding="utf-8")
    if path.name == "README.md":  # its "Reproducing the papers" section moves with the protocols
        head, _, rest = text.partition("## Reproducing the papers")
        text = head + "\n" * rest.count("\n", 0, rest.find("\n## ")) + rest[rest.find("\n## ") :]
    return enumerate(text.splitlines(), start=1)


def test_no_reference_to_documents_outside_the_repository():
    found = []
    for path in _sources():
        if path.name == "test_docs.py":
            continue
        for number, line in _lines(path):
            if OUTSIDE.search(line) and "hashlib" not in line and ".hexdigest" not in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
