"""`ragraf report` (issue 16): a self-contained HTML page, rendered by a real headless Chromium
and checked by its text."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragraf import config
from ragraf.indexing import indexer
from tests.helpers import copy_pilot, edit_file, invoke

pytestmark = pytest.mark.slow  # two builds and a browser


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("RAGRAF_CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium); .ci/run does")
    return exe


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.urls += [v or "" for k, v in attrs if k in ("src", "href")]

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts))


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pilot after one change effort (edit, ack, reindex --commit) and a new edit."""
    root = copy_pilot(tmp_path_factory.mktemp("report") / "pilot")
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(cfg)
    edit_file(root, "src/Billing/Invoice.php", "return $ok;", "return !$ok;")
    invoke("-C", root, "drift", "--scan", check=True)
    invoke("-C", root, "drift", "--ack", "1", "--text", "reviewed <b>the</b> flip", check=True)
    invoke("-C", root, "reindex", "--commit", check=True)
    edit_file(root, "src/bootstrap.php", "function format_money", "function format_money_v2")
    invoke("-C", root, "drift", "--scan", check=True)
    return root


def test_report_page_renders_in_a_browser_with_the_knowledge(reported: Path) -> None:
    exe = _chromium()
    r = invoke("-C", reported, "report", check=True)
    page = Path(r.stdout.strip())
    assert page == reported / ".ragraf" / "report" / "index.html"
    dom = subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0 and "<main>" in dom.stdout, dom.stderr[-2000:]
    parsed = _Text()
    parsed.feed(dom.stdout)
    text = parsed.text()
    # self-contained: no script, nothing fetched from anywhere
    assert parsed.scripts == 0 and not [u for u in parsed.urls if u], parsed.urls
    for want in (
        "active revision rev-0002 (ready)",
        "Since rev-0002 was sealed, 1 change was registered in the ledger, 1 not acknowledged",
        "1 earlier ledger entry was closed by the reindex that archived it",
        "rev-0001 ready",
        "rev-0002 ready rev-0001",
        "changed App\\Billing\\Invoice::charge",
        "reviewed <b>the</b> flip",  # a note is text, never markup
        "added format_money_v2 removed format_money",
        "not yet",
        "rev-0001 → rev-0002",
        "Ledger changes: 1 · files: 1",
        "rechecked and confirmed in rev-0002",
        "Coverage of rev-0002",
        "Files. 12 of 12 files were read and parsed (0 only in part), 0 failed, 0 skipped.",
        "Of the calls to the project's own code,",
        "All ",  # the raw metrics, folded away
        "files.ok 12",
        "Repository map",
        "Invoice::charge",
    ):
        assert want in text, (want, text[:3000])
    shot = _screenshot(exe, page, reported / "shot.png")
    assert shot.stat().st_size > 20_000  # a page was painted, not a blank
    assert OPEN_ROW in _colours(shot)  # the open entry #2 is highlighted


#: the background of an open ledger entry (.open in report.html.j2)
OPEN_ROW = (0xFD, 0xE8, 0xD8)


def _screenshot(exe: str, page: Path, shot: Path) -> Path:
    subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1200,1400",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return shot


def _colours(png: Path) -> set[tuple[int, int, int]]:
    """The RGB colours of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    prev, out = bytearray(stride), set()
    for y in range(height):
        at = y * (stride + 1)
        kind, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
        out.update((line[i], line[i + 1], line[i + 2]) for i in range(0, stride, channels))
        prev = line
    return out


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pilot after a change effort whose entry was never acknowledged, then archived
    by `reindex --commit`, with no change since: nothing is open."""
    root = copy_pilot(tmp_path_factory.mktemp("closed") / "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    edit_file(root, "src/Billing/Invoice.php", "return $ok;", "return !$ok;")
    invoke("-C", root, "drift", "--scan", check=True)
    invoke("-C", root, "reindex", "--commit", check=True)
    return root


def test_report_tells_one_story_about_an_archived_ledger(closed: Path) -> None:
    """'Now' and the timeline agree (issue 43.6): an entry that the reindex archived is
    closed, not waiting for an acknowledgement, and nothing on the page is highlighted."""
    exe = _chromium()
    page = Path(invoke("-C", closed, "report", check=True).stdout.strip())
    dom = subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    parsed = _Text()
    parsed.feed(dom.stdout)
    text = parsed.text()
    for want in (
        "No change is registered in the ledger since rev-0002 was sealed."
        " The index answers for the tree as it is."
        " 1 earlier ledger entry was closed by the reindex that archived it (see Archives).",
        "no; closed by the reindex to rev-0002",
    ):
        assert want in text, (want, text[:3000])
    assert "not yet" not in text and "not acknowledged" not in text, text[:3000]
    shot = _screenshot(exe, page, closed / "shot.png")
    assert OPEN_ROW not in _colours(shot)  # no row shows as waiting


def test_the_archives_show_code_as_code_never_a_backtick(reported: Path) -> None:
    """The archive's Markdown is shown as headings, lists and <code>, not as its source."""
    page = Path(invoke("-C", reported, "report", check=True).stdout.strip()).read_text()
    section = page[page.index('<section id="archives">') : page.index('<section id="slices">')]
    assert "`" not in section
    assert "<code>src/Billing/Invoice.php</code> (modify)" in section
    assert "<h4>What went stale in the knowledge between revisions</h4>" in section
    # as a browser shows it: code spans are code, no backtick anywhere in the archives
    dom = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
        + [(reported / ".ragraf/report/index.html").as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    shown = dom[dom.index('<section id="archives">') : dom.index('<section id="slices">')]
    parsed = _Text()
    parsed.feed(shown)
    assert "`" not in parsed.text() and "Confirmed: " in parsed.text()
