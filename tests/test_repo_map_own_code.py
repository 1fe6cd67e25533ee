"""repo_map maps the project's own code (issue 43.6): a bundler's copy of a source file
(``js/dist/x.js`` of ``js/src/x.js``) and vendored code are left out and counted; a built
file without a source in the index stays (it is the only copy)."""

from __future__ import annotations

from pathlib import Path

from ragraf import config, facade
from ragraf.indexing import indexer
from tests.helpers import invoke, write

SOURCE = """export function renderGrid(rows) {
  return rows.map(formatRow).join("\\n");
}
export function formatRow(row) {
  return row.cells.map(formatCell).join(" | ");
}
export function formatCell(cell) {
  return String(cell.value);
}
"""
# what a transpiler leaves: the same functions, other lines, no source-map marker
BUILT = "'use strict';\n\n" + SOURCE.replace("export ", "")
ONLY_BUILT = "function bootLegacy() {\n  return formatCell({ value: 1 });\n}\n"
VENDORED = "function vendorHelper(x) {\n  return x;\n}\nvendorHelper(1);\n"


def test_repo_map_leaves_out_built_copies_and_vendored_code(tmp_path: Path) -> None:
    root = tmp_path / "app"
    write(root, "js/src/grid.js", SOURCE)
    write(root, "js/dist/grid.js", BUILT)
    write(root, "js/dist/legacy.js", ONLY_BUILT)
    write(root, "js/third_party/helper.js", VENDORED)
    write(root, "js/src/main.js", 'import { renderGrid } from "./grid.js";\nrenderGrid([]);\n')
    config.init_project(root)
    indexer.build(config.load(root), no_vectors=True)
    r = facade.run_op(root, "repo_map", {"budget_tokens": 4000})["result"]
    paths = {f["path"] for m in r["modules"] for f in m["files"]}
    assert "js/src/grid.js" in paths
    assert "js/dist/grid.js" not in paths and "js/third_party/helper.js" not in paths
    assert "js/dist/legacy.js" in paths  # no source of it is indexed: the only copy
    assert r["left_out"] == {"built_copies": 3, "vendored": 1}
    text = invoke("-C", root, "query", "repo_map", "--budget-tokens", "4000", check=True).stdout
    assert (
        "(left out: 3 built copies (dist/, build/: their source is mapped),"
        " 1 symbol of vendored code)"
    ) in text.splitlines()
