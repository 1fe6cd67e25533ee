"""The hand-checked JavaScript / TypeScript slices of issue 42 (``bench/slice.py --corpus
express`` / ``--corpus zod``): per corpus of the languages bench (``bench/lang_calls.py``:
express 4.21.2's ``lib/``, zod 3.25.76's ``src/``), (path, line of the slice start, variable
or None, the lines of a correct backward slice of depth 1 inside the function), read from
the source as a program dependence graph has them: data and control dependences, the
predicate of an early ``return`` / ``continue`` (not the jump itself), the signature line
when a parameter is used, and a write through a method the code calls on an object
(``xs.push(v)``, ``status.dirty()``) as a definition of it.
"""

from __future__ import annotations

_UTILS = "lib/utils.js"
_VIEW = "lib/view.js"
_LAYER = "lib/router/layer.js"
_PARSE = "src/v3/helpers/parseUtil.ts"
_UTIL = "src/v3/helpers/util.ts"

HAND_CHECKED_JS: dict[str, list[tuple[str, int, str | None, list[int]]]] = {
    "express": [
        # normalizeTypes: ret from its literal and the push in the for loop (a mutation)
        (_UTILS, 102, None, [95, 96, 98, 99, 102]),
        # acceptParams: ret from its literal and both branches' element / property writes
        (_UTILS, 139, None, [126, 127, 128, 130, 131, 132, 133, 135, 139]),
        # setCharset: the early return guards the rest; parsed written through a property
        (_UTILS, 258, None, [246, 247, 252, 255, 258]),
        # View#lookup: `var path;` and the loop's assignment; the loop tests path too
        (_VIEW, 122, None, [104, 105, 106, 110, 111, 114, 115, 116, 119, 122]),
        # View#resolve: the second path kills the first; two guards with early returns
        (_VIEW, 162, None, [146, 147, 150, 151, 153, 158, 159, 161, 162]),
        # Layer#match: an element write in a loop after three guards with early returns;
        # this.params set earlier in the method
        (
            _LAYER,
            151,
            None,
            [110, 111, 113, 115, 122, 129, 132, 139, 142, 143, 145, 146, 147, 148, 150, 151],
        ),
        # decode_param: the catch's parameter, under the early return's guard
        (_LAYER, 175, None, [166, 167, 173, 174, 175]),
        # res.links' callback: its parameter and the captured `links`; not `link`
        ("lib/response.js", 94, None, [90, 93, 94]),
    ],
    "zod": [
        # makeIssue: object destructuring of the parameter, an early return, a for-of
        (_PARSE, 36, None, [6, 12, 13, 14, 19, 27, 28, 32, 33, 36]),
        # ParseStatus.mergeArray: status.dirty() changes status (a call on the object)
        (_PARSE, 109, None, [101, 102, 103, 104, 105, 106, 109]),
        # util.getValidEnumValues: an element write in a for-of
        (_UTIL, 30, None, [24, 25, 26, 27, 28, 30]),
        # util.objectKeys' fallback: for-in, a guarded push
        (_UTIL, 49, None, [42, 43, 44, 45, 46, 49]),
        # ZodError#flatten: a default parameter, two arrays written by push in branches
        ("src/v3/ZodError.ts", 310, None, [298, 299, 300, 301, 302, 303, 304, 305, 307, 310]),
    ],
}
