"""`ragraf report` (issue 16): a self-contained HTML page, rendered by a real headless Chromium
and checked by its text."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
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
        "Ledger: 1 entries against rev-0002, 1 not acknowledged",
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
        "files.ok 12",
        "Repository map",
        "Invoice::charge",
    ):
        assert want in text, (want, text[:3000])
    shot = reported / "shot.png"
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
    assert shot.stat().st_size > 20_000  # a page was painted, not a blank


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
