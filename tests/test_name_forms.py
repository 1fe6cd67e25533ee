"""The names people type (issue 40 section 1): every form of a declaration's name, in every
deep language, through every operation that takes a symbol, by the CLI and by the MCP
server; a name of several declarations answers with the list (path, kind, callers each)
and how to narrow; a name of none with the nearest names.

The fixture (fixtures/names) declares one target per language under a name nothing else
has, ``label`` in every language and ``noop`` in eleven Python classes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.helpers import REPO, invoke
from tests.schemacheck import check
from tests.test_python import indexed_copy

NAMES = REPO / "fixtures" / "names"

#: language -> the target's fqn as the index stores it (Python's: read from the index, its
#: package root decides whether ``py.`` is part of it), the caller the answer must list
#: (None: JavaScript's ``this``-less object method has none yet) and the forms by kind
FORMS: dict[str, tuple[str | None, str | None, dict[str, str]]] = {
    "php": (
        "Shop\\Cli\\Console::execute",
        "Shop\\Cli\\Job::run",
        {
            "fqn": "Shop\\Cli\\Console::execute",
            "fqn with a leading backslash": "\\Shop\\Cli\\Console::execute",
            "namespace tail": "Cli\\Console::execute",
            "Owner::name": "Console::execute",
            "Owner.name": "Console.execute",
            "Owner#name": "Console#execute",
            "Owner/name": "Console/execute",
            "Owner\\name": "Console\\execute",
            "name": "execute",
            "case": "console::EXECUTE",
        },
    ),
    "python": (
        None,
        "shop.pricing.checkout",
        {
            "import path": "shop.pricing.Cart.apply_discount",
            "path prefix": "py.shop.pricing.Cart.apply_discount",
            "module.Owner.name": "pricing.Cart.apply_discount",
            "Owner.name": "Cart.apply_discount",
            "Owner::name": "Cart::apply_discount",
            "Owner#name": "Cart#apply_discount",
            "Owner/name": "Cart/apply_discount",
            "Owner\\name": "Cart\\apply_discount",
            "name": "apply_discount",
            "file path": "py/shop/pricing.py::Cart.apply_discount",
        },
    ),
    "javascript": (
        "web/app.app.set",
        None,
        {
            "fqn": "web/app.app.set",
            "module path": "./web/app.app.set",
            "module path with extension": "web/app.js#app.set",
            "Owner.name": "app.set",
            "Owner::name": "app::set",
            "Owner#name": "app#set",
            "Owner/name": "app/set",
            "Owner\\name": "app\\set",
            "name": "set",
        },
    ),
    "typescript": (
        "web/order.Order.total",
        "web/order.placeOrder",
        {
            "fqn": "web/order.Order.total",
            "module path": "./web/order.Order.total",
            "module path with extension": "web/order.ts#Order.total",
            "module.Owner.name": "order.Order.total",
            "Owner.name": "Order.total",
            "Owner::name": "Order::total",
            "Owner#name": "Order#total",
            "Owner/name": "Order/total",
            "Owner\\name": "Order\\total",
            "name": "total",
        },
    ),
    "go": (
        "router.Router.NewRoute",
        "router.Router.newRoute",
        {
            "fqn": "router.Router.NewRoute",
            "import path": "example.com/names/router.Router.NewRoute",
            "Owner.name": "Router.NewRoute",
            "Owner::name": "Router::NewRoute",
            "Owner#name": "Router#NewRoute",
            "Owner/name": "Router/NewRoute",
            "Owner\\name": "Router\\NewRoute",
            "name": "NewRoute",
        },
    ),
    "java": (
        "com.shop.Billing.charge",
        "com.shop.Billing.run",
        {
            "fqn": "com.shop.Billing.charge",
            "pkg.Class#method": "com.shop.Billing#charge",
            "package tail": "shop.Billing.charge",
            "Owner.name": "Billing.charge",
            "Class#method": "Billing#charge",
            "Owner::name": "Billing::charge",
            "Owner/name": "Billing/charge",
            "Owner\\name": "Billing\\charge",
            "name": "charge",
        },
    ),
}
CASES = [(lang, kind) for lang, (_f, _c, forms) in FORMS.items() for kind in forms]
#: every operation that takes a symbol, and where its answer says what it is about
OPS = ("symbol", "references", "callers", "callees", "impact", "code", "slice")


@pytest.fixture(scope="module")
def names_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(NAMES, tmp_path_factory.mktemp("forms") / "names")


def query(root: Path, op: str, *args: str) -> dict[str, Any]:
    res = invoke("-C", root, "query", op, *args, "--json", check=True)
    env: dict[str, Any] = json.loads(res.stdout)
    check(env)
    return env


def about(op: str, result: dict[str, Any]) -> list[str]:
    """The fqns of what an answer is about."""
    if op == "symbol":
        return [m["fqn"] for m in result["matches"]]
    if op == "code":
        return [it["fqn"] for it in result["items"]]
    if op == "slice":
        return [result["target"]["fqn"]] if result.get("target") else []
    return [t["fqn"] for t in result.get("target") or []]


def expected(root: Path, lang: str) -> str:
    fqn = FORMS[lang][0]
    if fqn is None:  # Python: the fqn the index prints
        (m,) = query(root, "symbol", "apply_discount")["result"]["matches"]
        fqn = m["fqn"]
        assert fqn.endswith("shop.pricing.Cart.apply_discount")
    return fqn


@pytest.mark.parametrize(("lang", "kind"), CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_every_form_names_the_target_in_every_operation(
    names_root: Path, lang: str, kind: str
) -> None:
    fqn = expected(names_root, lang)
    form = FORMS[lang][2][kind]
    for op in OPS:
        env = query(names_root, op, form)
        got = env["result"]
        if op == "slice" and got.get("refused"):
            # a language without the data-flow layer: refused once the name is found (a
            # name not found answers with the nearest names instead)
            assert lang != "php" and any("not covered by data flow" in x for x in env["limits"])
            continue
        assert about(op, got) == [fqn], (op, form, got)
        # the full name is shown whenever the form is not the fqn itself
        if op not in ("symbol", "slice"):
            shown = got.get("resolved")
            assert (shown is None) == (form.lstrip("\\").lower() == fqn.lower()), (op, shown)
            if shown:
                assert shown.startswith(f"'{form}' is ") and fqn in shown
    caller = FORMS[lang][1]
    if caller is not None:
        callers = query(names_root, "callers", form)["result"]["stated"]
        assert [c["fqn"].endswith(caller) for c in callers] == [True], callers
    if lang == "php":  # flow takes a parameter of a method named in any form
        src = query(names_root, "flow", f"{form}($cmd)")["result"]["source"]
        assert (src["kind"], src["fqn"], src["name"]) == ("parameter", fqn, "$cmd")


def test_the_fqn_the_tool_prints_finds_it_in_symbol_without_fqn(names_root: Path) -> None:
    """The fqn an answer prints is a name `query symbol` takes as it is (it used to need
    `--fqn`): Python's dotted one, JavaScript's module path, Go's and Java's."""
    for lang in FORMS:
        fqn = expected(names_root, lang)
        printed = query(names_root, "callers", fqn)["result"]["target"][0]["fqn"]
        assert about("symbol", query(names_root, "symbol", printed)["result"]) == [fqn]
        assert about("symbol", query(names_root, "symbol", "--fqn", printed)["result"]) == [fqn]


def test_a_name_spelled_with_its_case_wins_over_its_namesake(names_root: Path) -> None:
    """Go's NewRoute and newRoute are two methods: each spelling names its own."""
    low = query(names_root, "callers", "Router.newRoute")["result"]
    assert about("callers", low) == ["router.Router.newRoute"]
    assert [c["fqn"] for c in low["stated"]] == ["router.Router.Handle"]
    assert about("callers", query(names_root, "callers", "NewRoute")["result"]) == [
        "router.Router.NewRoute"
    ]


def test_a_name_of_several_declarations_lists_them_and_says_how_to_narrow(
    names_root: Path,
) -> None:
    res = query(names_root, "callers", "label")["result"]
    listed = {(c["path"], c["kind"], c["callers"]) for c in res["candidates"]}
    assert listed == {
        ("java/src/com/shop/Billing.java", "method", 1),
        ("php/src/Console.php", "method", 1),
        ("py/shop/pricing.py", "method", 1),
        ("web/app.js", "method", 1),  # a member of the object `app`: boot's app.label()
        ("web/order.ts", "method", 1),  # placeOrder (boot's call is app.label's, not by name)
    }
    assert len(res["target"]) == 5 and "--path FILE" in res["narrow"]
    text = invoke("-C", names_root, "query", "callers", "label", check=True).stdout.splitlines()
    assert text[0].startswith("5 callers: 5 stated, 0 derived")  # the summary line first
    assert text[1].startswith("5 distinct definitions answer together;")
    assert "give path (--path FILE)" in text[1]
    assert "  method Shop\\Cli\\Console::label  php/src/Console.php:12  (1 caller)" in text
    # --path narrows to one, the answer names it in full
    one = query(names_root, "callers", "label", "--path", "php/src/Console.php")["result"]
    assert about("callers", one) == ["Shop\\Cli\\Console::label"] and "candidates" not in one
    assert [c["fqn"] for c in one["stated"]] == ["Shop\\Cli\\Job::run"]
    # a longer name narrows too
    assert about("references", query(names_root, "references", "Order.label")["result"]) == [
        "web/order.Order.label"
    ]
    # Go's Label is not label when declarations spell it so; `Label` names it alone
    sym = query(names_root, "symbol", "label")["result"]
    assert sym["total"] == 5 and len(sym["candidates"]) == 5
    assert about("symbol", query(names_root, "symbol", "Label")["result"]) == [
        "router.Router.Label"
    ]


def test_a_partial_name_of_too_many_declarations_lists_them_instead(names_root: Path) -> None:
    for op in ("callers", "callees", "references", "impact", "code"):
        res = query(names_root, op, "noop")["result"]
        assert not res.get("target") and not res.get("items"), op
        assert len(res["candidates"]) == 11 and "too many" in res["narrow"], op
        assert {c["fqn"].rsplit(".", 2)[-2] for c in res["candidates"]} == {
            f"Step{i}" for i in range(1, 12)
        }
    text = invoke("-C", names_root, "query", "callers", "noop", check=True).stdout
    assert text.startswith("'noop' names 11 declarations, too many to answer for together;")
    assert "stated" not in text  # no empty walk
    one = query(names_root, "callers", "Step7.noop")["result"]
    assert [t["fqn"].rsplit(".", 2)[-2:] for t in one["target"]] == [["Step7", "noop"]]


#: a mistyped form per language -> the fqn the nearest names must offer
MISTYPED = {
    "Console::exeucte": "Shop\\Cli\\Console::execute",
    "Consol.execute": "Shop\\Cli\\Console::execute",
    "Cart.aply_discount": "shop.pricing.Cart.apply_discount",
    "shop.pricng.Cart.apply_discount": "shop.pricing.Cart.apply_discount",
    "app.sett": "web/app.app.set",
    "Ordr#total": "web/order.Order.total",
    "Routr.NewRoute": "router.Router.NewRoute",
    "example.com/names/router.Router.NewRout": "router.Router.NewRoute",
    "com.shop.Billing#chage": "com.shop.Billing.charge",
}


@pytest.mark.parametrize("typed", list(MISTYPED))
def test_a_name_of_nothing_offers_the_nearest_names(names_root: Path, typed: str) -> None:
    for op in OPS[:-1]:
        res = query(names_root, op, typed)["result"]
        assert about(op, res) == [], op
        assert any(n.endswith(MISTYPED[typed]) for n in res["nearest"]), (op, res["nearest"])
        assert typed in res["hint"]
    sliced = query(names_root, "slice", typed)["result"]
    assert MISTYPED[typed] in sliced["hint"]


# -- the MCP server (the official SDK's stdio client) ------------------------------------
async def _drive(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ragraf", "-C", str(root), "mcp"]
    )
    with open(root / "mcp-stderr.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [await session.call_tool(name, args) for name, args in calls]


@pytest.mark.slow
def test_every_form_in_every_language_through_the_mcp_server(names_root: Path) -> None:
    """The MCP tools read names as the CLI does: every form of every language, through
    every operation that takes a symbol (symbol's `name`, the others' `fqn`: references,
    callers, callees, impact, code, slice) and flow's source (PHP: `form($cmd)`), in one
    session; then a name of several declarations and a mistyped one."""
    calls: list[tuple[str, dict[str, Any]]] = []
    want: list[tuple[str, str, str]] = []
    fqns = {lang: expected(names_root, lang) for lang in FORMS}
    for lang, kind in CASES:
        form = FORMS[lang][2][kind]
        for op in OPS:
            calls.append((f"ragraf_{op}", {"name" if op == "symbol" else "fqn": form}))
            want.append((op, fqns[lang], lang))
        if lang == "php":
            calls.append(("ragraf_flow", {"source": f"{form}($cmd)"}))
            want.append(("flow", fqns[lang], lang))
    calls += [("ragraf_callers", {"fqn": "label"}), ("ragraf_callees", {"fqn": "Routr.NewRoute"})]
    results = anyio.run(_drive, names_root, calls)
    assert len(results) == len(calls)
    seen: set[tuple[str, str]] = set()
    for (name, args), (op, fqn, lang), res in zip(calls, want, results, strict=False):
        assert not res.is_error, res.content
        env = json.loads(res.content[0].text)
        check(env)
        assert env["op"] == op
        got = env["result"]
        if op == "flow":
            src = got["source"]
            assert (src["kind"], src["fqn"], src["name"]) == ("parameter", fqn, "$cmd"), args
        elif op == "slice" and got.get("refused"):
            # no data-flow layer for the language: refused once the name is found
            assert lang != "php" and any("not covered by data flow" in x for x in env["limits"])
        else:
            assert about(op, got) == [fqn], (name, args)
        seen.add((op, lang))
    assert seen == {(op, lang) for op in OPS for lang in FORMS} | {("flow", "php")}
    several = json.loads(results[-2].content[0].text)["result"]
    assert len(several["candidates"]) == 5 and "--path" in several["narrow"]
    none = json.loads(results[-1].content[0].text)["result"]
    assert none["target"] is None and "router.Router.NewRoute" in none["nearest"]


def test_the_help_of_every_operation_taking_a_symbol_shows_every_language() -> None:
    from ragraf import facade
    from ragraf.facade import names

    taking = [op for op in facade.OPERATIONS if facade.spec(op).param("fqn") is not None]
    assert set(taking) == {"symbol", "references", "callers", "callees", "impact", "slice", "code"}
    for op in taking:
        text = invoke("query", op, "--help", check=True).stdout
        assert "Names:" in text and "Examples by language:" in text
        for lang, forms in names.FORMS_BY_LANGUAGE:
            assert f"# {lang}\n" in text and forms[-2] in text, (op, lang)
