"""The `ragraf` command: parse, call one library function, render.

Stdout is data (text for humans, JSON with --json for agents); diagnostics and
progress go to stderr. Library errors become exit codes here and nowhere else:
0 answer, 1 internal error, 2 bad arguments or config, 3 no project / no index,
4 another build is running, 5 refused by a rule (P1: the ledger is not empty),
6 `verify` found the ledger broken.
Heavy modules are imported inside commands so `ragraf --help` stays instant.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from ragraf.cli import glossary
from ragraf.errors import DiskFull, InvalidArgument, RagrafError
from ragraf.escape import corpus_name
from ragraf.kinds import VectorStatus

DEBUG_ENV = "RAGRAF_DEBUG"
_state: dict[str, Any] = {"project": None}


class _SuggestingGroup(TyperGroup):
    """A command group whose "No such command" names the nearest command, or the query
    operation the word is (`ragraf serch` -> did you mean `ragraf query search`?)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            near = difflib.get_close_matches(name, self.list_commands(ctx), n=2, cutoff=0.6)
            if not near and ctx.parent is None:
                from ragraf.facade import OPERATIONS

                ops = difflib.get_close_matches(name.replace("-", "_"), OPERATIONS, n=1)
                near = [f"query {op}" for op in ops]
            if near:
                ctx.fail(
                    f"No such command {name!r}. Did you mean "
                    + " or ".join(f"'{ctx.command_path} {n}'" for n in near)
                    + "?"
                )
        return super().resolve_command(ctx, args)


class _RagrafGroup(_SuggestingGroup):
    """The root command group: library errors become exit codes and one line on stderr
    here, whoever invokes the app (the console script or a test's CliRunner)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Arguments holding bytes that are no UTF-8 (a file name typed raw) take their
        corpus names (``ragraf.escape.corpus_name``), the one form paths have in ragraf."""
        return list(super().parse_args(ctx, [corpus_name(a) for a in args]))

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except RagrafError as e:
            _err(str(e))
            ctx.exit(e.exit_code)
        except BrokenPipeError:
            # the reader went away (`ragraf ... | head`): not an error of ours
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
            ctx.exit(0)
        except KeyboardInterrupt:
            _err("interrupted")
            ctx.exit(130)
        except (typer.Exit, typer.Abort):
            raise  # --help, ctx.exit(), a prompt aborted: typer handles them
        except OSError as e:
            if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                self._internal(ctx, e)
            full = DiskFull.at(Path(e.filename).parent if e.filename else "the project")
            _err(str(full))  # a write the library did not name: the disk is still the cause
            ctx.exit(full.exit_code)
        except Exception as e:
            if hasattr(e, "exit_code") and hasattr(e, "show"):
                raise  # typer's usage errors (bad option, missing argument): it reports them
            self._internal(ctx, e)

    @staticmethod
    def _internal(ctx: Any, e: Exception) -> None:
        where = _record_internal_error(e, ctx.invoked_subcommand)
        _err(
            f"internal error: {type(e).__name__}: {e}"
            + (f" (traceback in {where})" if where else "")
        )
        ctx.exit(1)


def _record_internal_error(e: BaseException, command: str | None = None) -> str | None:
    """Keep the traceback of an internal error in .ragraf/logs/error.log (and on stderr
    with RAGRAF_DEBUG=1); returns where it was written, if anywhere."""
    import traceback

    text = "".join(traceback.format_exception(e))
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        sys.stderr.write(text)
    try:
        from ragraf.config import Layout, find_root

        p = _state["project"]
        root = find_root(Path(p) if p else None)
    except Exception:  # noqa: BLE001 - no project: stderr (with RAGRAF_DEBUG) is all there is
        return None
    from ragraf.logs import file_logger

    layout = Layout(root)
    log = file_logger("ragraf.errors", layout.logs_dir, "error.log")
    log.error("%s %s\n%s", command or "-", type(e).__name__, text)
    return str(layout.logs_dir / "error.log")


app = typer.Typer(
    name="ragraf",
    help="RAGRAF: a code knowledge base for coding agents that never serves a stale fact silently.",
    epilog=glossary.epilog(),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_RagrafGroup,
)


@app.callback()
def _main(
    project: Annotated[
        Path | None,
        typer.Option(
            "--project", "-C", help="Project root (default: found upward from the current folder)."
        ),
    ] = None,
) -> None:
    _state["project"] = project


def _root() -> Path:
    from ragraf.config import find_root

    p = _state["project"]
    return find_root(Path(p) if p else None)


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def _err(msg: str) -> None:
    sys.stderr.write(f"ragraf: {msg}\n")


@app.command()
def init(
    path: Annotated[
        Path | None, typer.Argument(help="Project root (default: the current folder or --project).")
    ] = None,
    agents: Annotated[
        bool,
        typer.Option("--agents", help="Also add the agent regimen to the project's AGENTS.md."),
    ] = False,
) -> None:
    """Write .ragraf/config/project.yaml and confidence.yaml from the defaults."""
    from ragraf.config import init_project

    root = (path or _state["project"] or Path.cwd()).resolve()
    written = init_project(root)
    for w in written:
        _err(f"wrote {w}")
    if not written:
        _err(f"{root / '.ragraf' / 'config'} already holds a configuration; kept as is")
    if agents:
        from ragraf.agent_guidance import install

        target, what = install(root)
        _err(f"{target}: regimen {what}")


#: what each build stage counts (the rate column says "12 files/s", "80 chunks/s")
_STAGE_UNITS = {"scan": "files", "parse": "files", "embed": "chunks", "write": "stores"}


class _Bar:
    """Progress bars on stderr for humans (scan, parse, embed, write; done/total, rate, time
    left); silent when stderr is not a terminal, so --json and pipes stay clean."""

    def __init__(self) -> None:
        self.progress: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> _Bar:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                ProgressColumn,
                TaskProgressColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.text import Text

            class Rate(ProgressColumn):
                def render(self, task: Any) -> Text:
                    unit = _STAGE_UNITS.get(str(task.description).strip(), "")
                    if not unit or not task.speed:
                        return Text("")
                    return Text(f"{task.speed:,.0f} {unit}/s")

            self.progress = Progress(
                TextColumn("{task.description:>8}"),
                BarColumn(),
                TaskProgressColumn(),
                MofNCompleteColumn(),
                Rate(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
                # a line printed while the bars run (the seal) stays on stdout unless stdout
                # is the same terminal, where rich prints it above the bars
                redirect_stdout=sys.stdout.isatty(),
            )
            self.progress.__enter__()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.progress is None:
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)


_WAIT_HELP = (
    "Embed every vector before sealing (the revision appears whole, as before); by default"
    " the revision is sealed and queryable first and the vectors follow."
)


@app.command()
def index(
    force: Annotated[
        bool, typer.Option("--force", help="Build a new revision even when nothing changed.")
    ] = False,
    no_vectors: Annotated[
        bool, typer.Option("--no-vectors", help="Skip the embedding layer (search stays lexical).")
    ] = False,
    wait_vectors: Annotated[bool, typer.Option("--wait-vectors", help=_WAIT_HELP)] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Seal the corpus into a new immutable revision rev-NNNN, then embed its vectors."""
    from ragraf import config

    _run_build(
        config.load(_root()), as_json, force=force, no_vectors=no_vectors, wait_vectors=wait_vectors
    )


def _run_build(cfg: Any, as_json: bool, **kw: Any) -> None:
    """indexer.build with progress bars; in text the seal is reported the moment the
    revision is queryable, the vectors when they are done."""
    from ragraf.indexing import indexer

    told: list[bool] = []

    def on_sealed(res: Any) -> None:
        told.append(True)
        if not as_json:
            _print_index(res, as_json, part="sealed")
            sys.stdout.flush()

    with _Bar() as bar:
        res = indexer.build(cfg, progress=bar, on_sealed=on_sealed, **kw)
    _print_index(res, as_json, part="vectors" if told else "all")


def _print_index(res: Any, as_json: bool, part: str = "all") -> None:
    """``part``: all, or the two halves of a build whose vectors follow the seal
    (``sealed``: the revision; ``vectors``: the vector layer)."""
    data = {
        "status": res.status,
        "rev_id": res.rev_id,
        "counts": res.counts,
        "coverage": res.coverage,
        "timings_s": {k: round(v, 3) for k, v in res.timings.items()},
        "recovered": res.recovered,
        "pruned": res.pruned,
        "reused_files": res.reused_files,
        "archive": res.archive,
        "vectors": res.vectors,
        "schema": res.schema,
        "warnings": res.warnings,
    }
    if part != "sealed":
        for w in res.warnings:
            _err(w)
    if as_json:
        _emit_json(data)
        return
    if part in ("all", "sealed"):
        _print_sealed(res, embedding=part == "sealed")
    if part in ("all", "vectors") and res.vectors:
        v = res.vectors
        if v.get("status") == VectorStatus.READY:
            from ragraf.cli.render import model_label

            skipped = (
                f", {v['skipped']} skipped (no meaning for search)" if v.get("skipped") else ""
            )
            took = res.timings.get("vectors_after_seal")
            print(
                f"vectors: {v['computed']} computed, {v['reused']} reused{skipped}"
                f" ({model_label(v)})" + (f" in {took:.1f} s more" if took else "")
            )
        elif v.get("status") != VectorStatus.EMBEDDING:
            _err(f"vectors {v.get('status')}: {v.get('reason', 'skipped')}; search stays lexical")


def _print_sealed(res: Any, *, embedding: bool) -> None:
    for r in res.recovered:
        _err(f"removed the half-built {r} left by an interrupted build")
    if res.status == "current":
        print(
            f"the index is current: {res.rev_id} matches the corpus and the configuration (use --force to rebuild)"
            + ("; embedding the vectors it is missing" if embedding else "")
        )
        return
    from ragraf.cli.render import calls_line, schema_warning

    c = res.counts
    warning = schema_warning(res.schema, res.coverage)
    if warning:
        _err(warning)
    calls = calls_line(res.coverage)
    todo = len(res.pending.todo) if embedding and res.pending is not None else 0
    print(
        f"sealed {res.rev_id}: {c['files']} files, {c['nodes']} nodes, {c['edges']} edges, {c['chunks']} chunks"
        f" in {res.timings.get('queryable', res.timings.get('total', 0)):.2f} s"
        + (f"; {calls}" if calls else "")
    )
    if c.get("rows_kept"):
        print(
            f"shared {c['rows_kept']:,} rows with the previous revision; wrote"
            f" {c.get('rows_added', 0):,}, closed {c.get('rows_closed', 0):,}"
        )
    if c.get("resolve_files_reused"):  # a scoped reindex: which files were linked again
        renamed = c.get("resolve_files_renamed", 0)
        print(
            f"linked {c.get('resolve_files_resolved', 0)} files again, kept the links of"
            f" {c['resolve_files_reused'] + renamed}"
            + (f" ({renamed} with the new ids of declarations that moved)" if renamed else "")
        )
    for p in res.pruned:
        print(f"pruned {p} (retain_revs): deleted the rows no retained revision shares")
    if res.archive:
        print(f"archived the ledger: {res.archive}")
    if todo:  # last: what the user waits for
        # true from here on: the revision is sealed, and a Ctrl-C while embedding keeps
        # the vectors written so far (tests/test_vectors_later.py sends a real SIGINT)
        print(
            f"{res.rev_id} answers now; vectors continue: {todo} chunks to embed for search"
            " by meaning (Ctrl-C is safe: `ragraf vectors --resume` finishes them)"
        )


@app.command()
def status(
    rev: Annotated[
        str | None, typer.Option("--rev", help="A retained revision (default: the active one).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Revision, state, capability, counts, coverage, ledger and store sizes."""
    from ragraf.facade.status import status as get_status

    data = get_status(_root(), rev)
    if as_json:
        _emit_json(data)
        return
    from ragraf.cli.render import status_text

    sys.stdout.write(status_text(data))


@app.command(
    context_settings={
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "help_option_names": [],  # `query OP --help` is the operation's help (cli/ophelp.py)
    }
)
def query(
    ctx: typer.Context,
    op: Annotated[
        str | None,
        typer.Argument(help="The operation (`ragraf query --help` lists them all)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the envelope as JSON.")] = False,
    rev: Annotated[
        str | None, typer.Option("--rev", help="Answer from this retained revision.")
    ] = None,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="With the text: how search scored each hit (its features)."),
    ] = False,
) -> None:
    """Ask one operation: `ragraf query OP [MAIN-ARGUMENT] [--option value ...]`.

    The main argument is the name, fqn, path or query the operation is about; options are
    the operation's arguments (--depth 2, --hard-only, --budget-tokens 500 ...)."""
    from ragraf import facade
    from ragraf.cli import ophelp
    from ragraf.facade.params import coerce_cli, did_you_mean, shown

    extra = list(ctx.args)
    if op is None and not extra:
        # a bare `ragraf query` is a usage error: the list of operations goes to stderr
        sys.stderr.write(ophelp.overview())
        ctx.exit(2)
    if op is None or op in ("--help", "-h"):
        sys.stdout.write(ophelp.overview())
        return
    op = op.replace("-", "_")
    sp = facade.spec(op)
    if "--help" in extra or "-h" in extra:
        sys.stdout.write(ophelp.op_help(op))
        return
    args: dict[str, Any] = {}
    while extra:
        tok = extra.pop(0)
        if not tok.startswith("--"):
            if sp.main is None:
                raise InvalidArgument(f"{op} takes no main argument (got {shown(tok)})")
            if sp.main in args:
                raise InvalidArgument(f"{op}: unexpected argument {shown(tok)}")
            args[sp.main] = coerce_cli(sp, sp.main, tok)
            continue
        name = tok[2:].replace("-", "_")
        value: str | bool
        declared = sp.param(name.split("=", 1)[0])
        if "=" in name:
            name, value = name.split("=", 1)
        elif declared is not None and declared.type == "bool":
            value = True
        elif extra:
            value = extra.pop(0)
        else:
            raise InvalidArgument(f"{op}: option --{name} needs a value")
        if name == "samples_file":  # the earlier spelling of --samples FILE
            name = "samples"
        declared = sp.param(name)
        if declared is None:
            flags = ["--" + p.name.replace("_", "-") for p in sp.params]
            flag = "--" + name.replace("_", "-")
            raise InvalidArgument(
                f"{op}: unknown option {shown(flag)}{did_you_mean(flag, flags)};"
                f" options: {', '.join(flags) or 'none'}"
                f" (`ragraf query {op} --help`)"
            )
        if declared.type == "samples" and isinstance(value, str):
            args[name] = _load_samples(value)
            continue
        args[name] = coerce_cli(sp, name, value)
    if explain and op == "search":
        args.setdefault("detail", "full")  # the scoring features --explain shows
    env = facade.run_op(_root(), op, args, rev)
    if as_json:
        _emit_json(env)
    else:
        from ragraf.cli.render import envelope_text

        sys.stdout.write(envelope_text(env, explain))


def _load_samples(value: str) -> list[dict[str, Any]]:
    """Labelled samples for calibrate, from a YAML/JSON file or the JSON text itself:
    [{query, relevant}] or the evaluation-set format ({queries: [{query, category}]}, where
    category 'nonsense' means not relevant)."""
    import yaml

    inline = value.lstrip().startswith(("[", "{"))
    where = "--samples" if inline else f"--samples {value}"
    try:
        data = yaml.safe_load(value if inline else Path(value).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise InvalidArgument(f"{where}: cannot read ({e})") from e
    items = data.get("queries") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InvalidArgument(f"{where}: expected a list of samples or a 'queries' list")
    out = []
    for it in items:
        if not isinstance(it, dict) or "query" not in it:
            raise InvalidArgument(f"{where}: every sample needs a 'query'")
        rel = it["relevant"] if "relevant" in it else it.get("category") != "nonsense"
        out.append({"query": str(it["query"]), "relevant": bool(rel)})
    return out


@app.command("live-read")
def live_read_cmd(
    path: Annotated[str, typer.Argument(help="A file relative to the project root.")],
    start: Annotated[int | None, typer.Option("--start", help="First line.")] = None,
    end: Annotated[int | None, typer.Option("--end", help="Last line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the envelope as JSON.")] = False,
) -> None:
    """The current text of a file, lines changed since the index marked with '+'."""
    from ragraf import facade

    args: dict[str, Any] = {"path": path}
    if start is not None:
        args["start"] = start
    if end is not None:
        args["end"] = end
    env = facade.run_op(_root(), "live_read", args)
    if as_json:
        _emit_json(env)
    else:
        from ragraf.cli.render import envelope_text

        sys.stdout.write(envelope_text(env))


@app.command()
def drift(
    scan: Annotated[
        bool,
        typer.Option(
            "--scan", help="Compare the tree with the active revision and append what changed."
        ),
    ] = False,
    note: Annotated[
        str | None,
        typer.Option("--note", help="Append a manual entry about this path (with --text)."),
    ] = None,
    text: Annotated[str | None, typer.Option("--text", help="The text of a manual entry.")] = None,
    ack: Annotated[
        str | None, typer.Option("--ack", help="Acknowledge entries: ids separated by commas.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Report entries after this id or since this ISO time."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The drift ledger: register changes (--scan), notes (--note PATH --text ...), acks (--ack 3,4);
    without an action, print the drift report of the active revision."""
    from ragraf import config

    root = _root()
    if sum(1 for given in (scan, note is not None, ack is not None) if given) > 1:
        raise InvalidArgument("give one of --scan, --note, --ack")
    if scan:  # the facade (~20 ms of imports) only for --json
        from ragraf.drift.scan import run_scan
        from ragraf.escape import escape

        rep = run_scan(config.load(root))
        if as_json:
            from ragraf.facade.ops import entry_view
            from ragraf.facade.sanitize import escape_tree

            _emit_json(
                escape_tree(
                    {
                        "rev_id": rep.rev_id,
                        "changed_files": rep.changes,
                        "new_entries": [entry_view(e) for e in rep.written],
                        "schema": rep.schema,
                    }
                )
            )
            return
        print(
            f"{rep.changes} changed files against {rep.rev_id}; {len(rep.written)} new ledger entries"
        )
        for e in rep.written:
            print(
                f"  #{e.id} {e.kind} {escape(e.path)}" + (f" - {escape(e.note)}" if e.note else "")
            )
        return
    if note is not None:
        from ragraf.drift.scan import note_entry
        from ragraf.facade.params import normalise_path

        if not text:
            raise InvalidArgument("--note needs --text")
        rows = note_entry(config.load(root), normalise_path("drift", "--note", note), text)
        print(
            f"#{rows[0].id} note {rows[0].path}"
            if rows
            else "the same note is already in the ledger"
        )
        return
    from ragraf import facade
    from ragraf.facade.params import coerce_cli

    if ack is not None:
        ids = coerce_cli(facade.spec("drift_ack"), "entry_ids", ack)
        env = facade.run_op(
            root, "drift_ack", {"entry_ids": ids, **({"note": text} if text else {})}
        )
    else:
        env = facade.run_op(root, "drift_report", {"since": since} if since else {})
    if as_json:
        _emit_json(env)
    else:
        from ragraf.cli.render import envelope_text

        sys.stdout.write(envelope_text(env))


hook_app = typer.Typer(
    help="Hooks for agent environments.", no_args_is_help=True, cls=_SuggestingGroup
)
app.add_typer(hook_app, name="hook")


@hook_app.command("session-start")
def hook_session_start(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the drift report envelope.")
    ] = False,
) -> None:
    """Register changes made since the revision (detected_by hook:session-start), then print
    a short summary: what changed, what is not acknowledged, what to do next."""
    from ragraf import config, facade
    from ragraf.cli.render import session_summary
    from ragraf.drift.scan import run_scan

    root = _root()
    rep = run_scan(config.load(root), detected_by="hook:session-start")
    env = facade.run_op(root, "drift_report", {})
    if as_json:
        _emit_json(env)
    else:
        sys.stdout.write(session_summary(env, len(rep.written)))


@app.command()
def verify(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Check the ledger: its hash chains, every LEDGER.md block against its row, stale
    edges, the append-only triggers, the head kept outside .ragraf/, the archives."""
    from ragraf.config import Layout
    from ragraf.drift import ledger
    from ragraf.store.control import ControlStore

    root = _root()
    control = ControlStore(Layout(root).control_db, readonly=True)
    try:
        res = ledger.verify(Layout(root), control)
    finally:
        control.close()
    for note in res["notes"]:
        _err(note)
    if as_json:
        _emit_json(res)
    elif res["ok"]:
        print(
            f"ledger intact: {res['entries']} entries, {res['acks']} acks, head {res['head'][:16]}"
        )
    else:
        for p in res["problems"]:
            print(f"BROKEN: {p}")
    if not res["ok"]:
        from ragraf.errors import LedgerBroken

        raise LedgerBroken(f"the ledger is broken: {len(res['problems'])} problem(s) found")


@app.command()
def reindex(
    commit: Annotated[
        bool, typer.Option("--commit", help="Seal the next revision and archive the ledger.")
    ] = False,
    no_vectors: Annotated[
        bool, typer.Option("--no-vectors", help="Skip the embedding layer (search stays lexical).")
    ] = False,
    wait_vectors: Annotated[bool, typer.Option("--wait-vectors", help=_WAIT_HELP)] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """End a change effort: build the next revision (reusing unchanged files) and archive the ledger."""
    if not commit:
        raise InvalidArgument(
            "reindex needs --commit (it seals a new revision and archives the ledger)"
        )
    from ragraf import config

    _run_build(
        config.load(_root()), as_json, commit=True, no_vectors=no_vectors, wait_vectors=wait_vectors
    )


@app.command()
def vectors(
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Embed the vectors the active revision is missing (after an interrupted"
            " build, --no-vectors, or a model that was unavailable).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """How far the active revision's vector layer is; --resume finishes it."""
    from ragraf import config

    root = _root()
    if resume:
        from ragraf.indexing import indexer

        with _Bar() as bar:
            indexer.resume_vectors(config.load(root), progress=bar)
    from ragraf.facade.status import status as get_status

    data = get_status(root)["vectors"]
    if as_json:
        _emit_json(data)
        return
    from ragraf.cli.render import vectors_text

    print(vectors_text(data))


@app.command("diff")
def diff_cmd(
    rev_a: Annotated[str, typer.Argument(help="The older revision.")],
    rev_b: Annotated[str, typer.Argument(help="The newer revision.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Items listed per section.")] = 50,
) -> None:
    """Nodes and edges added and removed between two retained revisions (what only moved
    is counted per file, not listed)."""
    from ragraf.drift.revdiff import diff_revs

    res = diff_revs(_root(), rev_a, rev_b, limit)
    if as_json:
        _emit_json(res)
        return
    from ragraf.cli.render import diff_text

    sys.stdout.write(diff_text(res))


@app.command()
def report(
    open_: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
) -> None:
    """Write a static HTML page for humans: revisions, the ledger timeline with acks, each
    archive's arithmetic, slice boundaries, coverage and the repo map (.ragraf/report/)."""
    from ragraf.facade.report import write

    page = write(_root())
    print(page)
    if open_:
        import webbrowser

        if not webbrowser.open(page.as_uri()):
            _err(f"no browser to open; the page is {page}")


model_app = typer.Typer(
    help="The embedding model (the default ships with ragraf; `model fetch` gets another).",
    no_args_is_help=True,
    cls=_SuggestingGroup,
)
app.add_typer(model_app, name="model")


#: what `model fetch --help` says (tests/test_cli_text.py checks the names against
#: ragraf.embed.DEFAULT_MODEL and SPEC_MODEL; imported here they would slow `--help`)
_MODEL_USED = "sentence-transformers/all-MiniLM-L6-v2"
_MODEL_FETCHED = "paraphrase-multilingual-MiniLM-L12-v2"


@model_app.command(
    "fetch",
    help=(
        "Download another embedding model into ragraf's cache (the only command that uses the"
        f" network). Not needed for the model ragraf uses by default, {_MODEL_USED}: it ships"
        " with ragraf (PyPI); fetch a model only to switch to it (embedding.model in"
        " .ragraf/config/project.yaml)."
    ),
)
def model_fetch(
    name: Annotated[
        str | None,
        typer.Argument(
            help=f"A fastembed model name (without one: {_MODEL_FETCHED}, a multilingual"
            " model for code whose comments and names are not in English).",
        ),
    ] = None,
) -> None:
    from ragraf.embed import SPEC_MODEL, fetch_model

    model, dest = fetch_model(name or SPEC_MODEL)
    print(f"{model} cached in {dest}; set embedding.model: {model} and embedding.path: null")


@app.command()
def mcp() -> None:
    """Serve every operation as an MCP tool ragraf_<op> over stdio (stdout is the protocol).

    Outside a project the server still starts and answers every tool call with the reason."""
    from ragraf.cli.mcp_server import serve
    from ragraf.errors import NoIndexError

    try:
        root = _root()
    except NoIndexError as e:
        hint = NoIndexError(
            f"{e}, or start the server with `ragraf -C /path/to/project mcp`"
            " (or the client's cwd set to the project)"
        )
        serve(None, hint)
        return
    serve(root)


@app.command("setup-agent")
def setup_agent(
    client: Annotated[
        str,
        typer.Argument(help="claude-code, cursor, codex, vscode or zed.", metavar="CLIENT"),
    ],
    print_only: Annotated[
        bool,
        typer.Option("--print", help="Print what would be written instead of writing it."),
    ] = False,
    remove: Annotated[
        bool,
        typer.Option("--remove", help="Remove the ragraf server entry from the client's file."),
    ] = False,
    command: Annotated[
        str | None,
        typer.Option(
            "--command", help="The ragraf executable the client starts (default: this one)."
        ),
    ] = None,
) -> None:
    """Register ragraf's MCP server and the regimen with a coding agent's client.

    The server entry goes into the client's own file (.mcp.json, .cursor/mcp.json,
    .vscode/mcp.json, .zed/settings.json, ~/.codex/config.toml), merged with what is there;
    the regimen into AGENTS.md (for Claude Code, CLAUDE.md imports it). Running it again
    changes nothing."""
    from ragraf import agent_guidance, agent_setup

    c = agent_setup.get_client(client)
    if remove:  # also after `uninit`, when no project is left to find
        p = _state["project"]
        root = (Path(p) if p else Path.cwd()).resolve()
        path, what = agent_setup.unregister(c, root)
        said = {
            "removed": "ragraf server removed",
            "deleted": "ragraf server removed (the file held nothing else: deleted)",
            "absent": f"no ragraf server entry for {root}; nothing changed",
        }
        print(f"{path}: {said[what]}")
        return
    root = _root()
    cmd = [command] if command else agent_setup.ragraf_command()
    target = agent_setup.config_file(c, root)
    if print_only:
        print(f"# {target}: the ragraf server entry, merged with the servers there ({c.doc})")
        sys.stdout.write(agent_setup.snippet(c, root, cmd))
        print(f"\n# {root / 'AGENTS.md'}: the regimen block")
        sys.stdout.write(agent_guidance.regimen())
        if c.name == "claude-code":
            print(f"\n# {root / 'CLAUDE.md'}: Claude Code reads it, not AGENTS.md")
            print(agent_setup.CLAUDE_BLOCK)
        return
    path, what = agent_setup.register(c, root, cmd)
    print(f"{path}: ragraf server {what} ({' '.join([*cmd, '-C', str(root), 'mcp'])})")
    path, what = agent_guidance.install(root)
    print(f"{path}: regimen {what}")
    if c.name == "claude-code":
        path, what = agent_setup.install_claude_import(root)
        print(
            f"{path}: "
            + ("imports AGENTS.md already" if what == "present" else f"import of AGENTS.md {what}")
        )
    from ragraf.config import Layout

    if c.scope == "home":
        print(
            f"{target} is {c.label}'s file for every project: its ragraf server now answers"
            f" for {root} (run setup-agent {c.name} in another project to switch)"
        )
    ready = Layout(root).rev_json.is_file()
    print(
        f"Next: {'' if ready else 'run `ragraf index` (the server answers once the project is indexed), then '}"
        f"restart {c.label} in {root}; its tools are ragraf_<op> (ragraf_index_status first)."
    )


@app.command()
def uninit(
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Remove what ragraf wrote into the project (.ragraf/, .gitignore lines, regimen).

    That is .ragraf/ (configuration, index, ledger), the two .gitignore lines `init` added
    and the regimen blocks in AGENTS.md and CLAUDE.md; nothing else. The clients' MCP files
    are kept and named (`setup-agent CLIENT --remove` takes the entry out)."""
    from ragraf.indexing.uninit import uninit as run_uninit

    root = _root()
    if not yes:
        typer.confirm(
            f"Remove {root / '.ragraf'} (its index and ledger), the .gitignore lines and the"
            " regimen blocks ragraf wrote?",
            abort=True,
            err=True,
        )
    for path, what in run_uninit(root):
        print(f"{path}: {what}")


def main() -> None:
    """The console script (and ``python -m ragraf``): errors become exit codes in the group.

    The process then ends without tearing its heap down object by object (after a
    reindex of phpMyAdmin that is ~0.1 s of the command's wall time): by then every store
    is closed by its ``with`` (transactions committed or rolled back), so only the output
    streams and the log handlers are left to flush, which is done first."""
    code: object = 0
    try:
        app(prog_name="ragraf")
    except SystemExit as e:
        code = e.code
    _hard_exit(code)


def _hard_exit(code: object) -> None:
    """``sys.exit(code)``'s meaning (None: 0; an int: it; anything else: printed, 1),
    without the interpreter's teardown."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        with contextlib.suppress(Exception):
            print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the reader went away, or the stream was closed
    logging = sys.modules.get("logging")
    if logging is not None:  # handlers that buffer (a log file) write what they hold
        logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    main()
