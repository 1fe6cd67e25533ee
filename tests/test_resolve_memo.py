"""The resolution memo's file (ragraf.build.resolve.scope.save / load): written a batch of
items at a time, it is JSON of the same value ``json.dumps`` writes, and it loads back."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from ragraf.build.resolve import scope


def test_the_streamed_memo_is_the_json_of_one_dumps(tmp_path: Path) -> None:
    n = scope._BATCH * 2 + 7
    data = {
        "format": scope.FORMAT,
        "empty_list": [],
        "empty_dict": {},
        "queries": [["lookup", [f"n{i}", i], {"a": [i, "é\u2028"]}] for i in range(n)],
        "files": {f"src/f{i}.php": [f"k{i}", [i, i + 1], {"x": 1}, [], {}, []] for i in range(n)},
        "paths": 'p"q\\',
        "none": None,
        # a path that is not UTF-8 (surrogateescape): orjson refuses it, the stdlib escapes it
        "odd": [["lookup", ["dir/caf\udce9.php", 1], {"ints": {1: "x"}}]] * (scope._BATCH + 1),
    }
    text = zlib.decompress(b"".join(scope._compressed_json(data)))
    assert json.loads(text) == json.loads(json.dumps(data))


def test_a_memo_saved_loads_back(tmp_path: Path) -> None:
    memo = scope.Memo("params", "rev-0002", [("fn", ["a"], [1, 2])], paths="p")
    memo.files["a.php"] = scope.Entry(
        "sha|key", [0], scope.FileOut(stats={"calls": 2}, pathless=["n1"])
    )
    path = tmp_path / scope.MEMO_FILE
    scope.save(path, memo)
    back = scope.load(path)
    assert back is not None
    assert (back.params, back.rev, back.queries, back.paths) == (
        "params",
        "rev-0002",
        [("fn", ["a"], [1, 2])],
        "p",
    )
    assert back.files["a.php"].key == "sha|key" and back.files["a.php"].asked == [0]
    assert back.files["a.php"].out.stats == {"calls": 2}
