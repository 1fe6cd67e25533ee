"""docs/architecture.md defines every section (§N.M) and label (P1, I2, FT-9, SEC-001, ...) the
code cites, so the references in ragraf/, schemas/ and config/ resolve inside the repository."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tests.helpers import REPO

DOC = REPO / "docs" / "architecture.md"

SECTION_REF = re.compile(r"§(\d+(?:\.\d+)*)")
# P<digit> / I<digit> count only where they stand as labels: after a space, "(" or a line start,
# followed by a non-word character ("(P1:", " I2:", "P6)."; not "HTTP1", "sha1", "P10", "I2C").
PI_LABEL = re.compile(r"(?:(?<=[ (])|^)([PI]\d)(?!\w)", re.MULTILINE)
OTHER_LABEL = re.compile(r"\b(FT-\d+|SEC-\d{3}|NFR-\d+|R-[A-Z]+-\d+)\b")
# "## 4. Stores" -> 4, "### 5.3 Identifiers" -> 5.3
HEADING = re.compile(r"^#{2,6} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)
GLOSSARY_HEADING = "## Appendix"
GLOSSARY_ROW = re.compile(r"^\| *([^|]+?) *\|", re.MULTILINE)


def _sources() -> list[Path]:
    files = sorted((REPO / "ragraf").rglob("*.py"))
    for top in ("schemas", "config"):
        files += sorted(p for p in (REPO / top).rglob("*") if p.is_file())
    return [p for p in files if "__pycache__" not in p.parts]


def _cited(rx: re.Pattern[str]) -> dict[str, list[str]]:
    """What ``rx`` finds in the sources -> the places (path:line) citing it."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for m in rx.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found[m.group(1)].append(f"{path.relative_to(REPO)}:{line}")
    return dict(found)


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _headings() -> set[str]:
    return set(HEADING.findall(_doc()))


def _glossary() -> dict[str, str]:
    """Label -> its glossary row (the table after the appendix heading)."""
    doc = _doc()
    start = doc.find(GLOSSARY_HEADING)
    assert start >= 0, f"{DOC}: no '{GLOSSARY_HEADING}' section"
    rows: dict[str, str] = {}
    for m in GLOSSARY_ROW.finditer(doc, start):
        label = m.group(1).strip("` ")
        if label in ("Label", "") or set(label) <= set("-: "):
            continue
        line_end = doc.find("\n", m.start())
        rows[label] = doc[m.start() : line_end if line_end >= 0 else len(doc)]
    return rows


def test_the_patterns_find_labels_and_only_labels() -> None:
    text = "refused (P1: no) and - I2: kept, (principle P6).\nI4 is apart; see FT-10, SEC-001."
    assert PI_LABEL.findall(text) == ["P1", "I2", "P6", "I4"]
    assert OTHER_LABEL.findall(text) == ["FT-10", "SEC-001"]
    noise = "HTTP1 sha1 P10 I2C UTF-8 I/O xP1 mp3 FT-x SEC-1 (R-CORE-1x)"
    assert PI_LABEL.findall(noise) == []
    assert OTHER_LABEL.findall(noise) == []
    assert SECTION_REF.findall("(architecture §4.1 db_*, §6.1, §8.2, §15).") == [
        "4.1",
        "6.1",
        "8.2",
        "15",
    ]
    assert HEADING.findall("## 4. Stores\n### 4.2 lexvec\n## Appendix\n") == ["4", "4.2"]


def test_the_code_cites_sections_and_labels() -> None:
    # if these come back empty the collection is broken, not the code clean
    assert _cited(SECTION_REF), "no § reference found in ragraf/, schemas/, config/"
    assert _cited(PI_LABEL), "no P<n> / I<n> label found in ragraf/, schemas/, config/"
    assert _cited(OTHER_LABEL), "no FT- / SEC- / NFR- / R- label found"


def test_the_document_keeps_the_spec_numbering() -> None:
    headings = _headings()
    missing = [str(n) for n in range(1, 17) if str(n) not in headings]
    assert not missing, f"{DOC}: no top-level section {', '.join(missing)}"


def test_every_cited_section_is_a_heading() -> None:
    headings = _headings()
    missing = {s: where for s, where in _cited(SECTION_REF).items() if s not in headings}
    assert not missing, "sections cited by the code but not headings of docs/architecture.md: " + (
        "; ".join(f"§{s} ({', '.join(w[:3])})" for s, w in sorted(missing.items()))
    )


def test_every_cited_label_is_in_the_glossary() -> None:
    glossary = _glossary()
    cited = {**_cited(PI_LABEL), **_cited(OTHER_LABEL)}
    missing = {label: where for label, where in cited.items() if label not in glossary}
    assert not missing, "labels cited by the code but not in the glossary: " + (
        "; ".join(f"{label} ({', '.join(w[:3])})" for label, w in sorted(missing.items()))
    )


def test_the_glossary_points_at_existing_sections() -> None:
    headings = _headings()
    glossary = _glossary()
    assert glossary, "the glossary table is empty"
    for label, row in glossary.items():
        refs = SECTION_REF.findall(row)
        assert refs, f"glossary row {label} names no section: {row}"
        bad = [r for r in refs if r not in headings]
        assert not bad, f"glossary row {label} points at missing sections {bad}"
