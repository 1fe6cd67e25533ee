"""The resolution memo's file (ragraf.indexing.resolve.link_memo.save / load): written a batch of
items at a time, it is JSON of the same value ``json.dumps`` writes, and it loads back."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from ragraf.indexing.resolve import link_memo


def test_the_streamed_memo_is_the_json_of_one_dumps(tmp_path: Path) -> None:
    n = link_memo._BATCH * 2 + 7
    data = {
        "format": link_memo.FORMAT,
        "empty_list": [],
        "empty_dict": {},
        "queries": [["lookup", [f"n{i}", i], {"a": [i, "é\u2028"]}] for i in range(n)],
        "files": {f"src/f{i}.php": [f"k{i}", [i, i + 1], {"x": 1}, [], {}, []] for i in range(n)},
        "paths": 'p"q\\',
        "none": None,
        # a path that is not UTF-8 (surrogateescape): orjson refuses it, the stdlib escapes it
        "odd": [["lookup", ["dir/caf\udce9.php", 1], {"ints": {1: "x"}}]] * (link_memo._BATCH + 1),
    }
    text = zlib.decompress(b"".join(link_memo._compressed_json(data)))
    assert json.loads(text) == json.loads(json.dumps(data))


def test_a_memo_saved_loads_back(tmp_path: Path) -> None:
    memo = link_memo.Memo("params", "rev-0002", [("fn", ["a"], [1, 2])], paths="p")
    memo.files["a.php"] = link_memo.Entry(
        "sha|key", [0], link_memo.FileOut(stats={"calls": 2}, pathless=["n1"])
    )
    path = tmp_path / link_memo.MEMO_FILE
    link_memo.save(path, memo)
    back = link_memo.load(path)
    assert back is not None
    assert (back.params, back.rev, back.queries, back.paths) == (
        "params",
        "rev-0002",
        [("fn", ["a"], [1, 2])],
        "p",
    )
    assert back.files["a.php"].key == "sha|key" and back.files["a.php"].asked == [0]
    assert back.files["a.php"].out.stats == {"calls": 2}
