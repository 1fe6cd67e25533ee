"""A request's input: superglobals (``$_GET['id']``) as ``http_endpoint`` nodes that flow
to the code reading them, and on to the SQL strings their values reach (§6.5).

Invariants a change must keep:
- One ``http_endpoint`` node per superglobal and key (no path: every file reading it
  links to the same node); a ``flows_to`` edge from it to the reading owner.
- A value flows to a SQL string only along the def-use edges of the reading unit's data
  flow (``FileFacts.flows``): stated, at the string's line, ``via: def-use`` with the
  line of the read.
"""

from __future__ import annotations

import json

from ragraf import ids
from ragraf.kinds import EdgeKind, Layer, NodeKind
from ragraf.lang.facts import FileFacts, SuperglobalRef
from ragraf.lang.linking import EdgeSpec, LinkContext, Linking
from ragraf.model import NodeRow


def _endpoint(ref: SuperglobalRef) -> str:
    """The fqn of a superglobal's endpoint: ``$_GET['id']``, or the array alone."""
    return f"{ref.name}['{ref.key}']" if ref.key is not None else ref.name


class Requests:
    def __init__(self, ctx: LinkContext) -> None:
        self.ctx = ctx

    def on_superglobal(self, f: FileFacts, src: str, ref: SuperglobalRef) -> None:
        ctx = self.ctx
        fqn = _endpoint(ref)
        nid = ids.node_id(NodeKind.HTTP_ENDPOINT, fqn, None, None)
        if not ctx.has_node(nid):
            ctx.node(
                NodeRow(
                    nid,
                    NodeKind.HTTP_ENDPOINT,
                    fqn,
                    fqn,
                    None,
                    None,
                    None,
                    json.dumps({"superglobal": ref.name, "key": ref.key}),
                    Layer.STRUCTURAL,
                )
            )
        ctx.add(nid, src, EdgeKind.FLOWS_TO, f.path, ref.line)

    def flows(self, f: FileFacts) -> None:
        """``flows_to`` from a superglobal to each SQL string its value reaches through the
        def-use edges of the reading function (the data-flow layer, §6.5): stated, at the
        string's line, ``props.via = def-use`` and the line of the read."""
        ctx = self.ctx
        sql_at = ctx.sql_literals
        if not f.flows or not sql_at:
            return
        reads: dict[tuple[int, str], set[str]] = {}  # (line, superglobal) -> endpoint fqns
        for r in f.refs:
            if isinstance(r, SuperglobalRef):
                reads.setdefault((r.line, r.name), set()).add(_endpoint(r))
        for u in f.flows:
            if not u.sources or not reads:
                continue
            data = json.loads(u.data)
            stmts = data["s"]
            out: dict[int, list[int]] = {}
            for a, b, _var in data["d"]:
                out.setdefault(a, []).append(b)
            for i, s in enumerate(stmts):
                names = [v for v in s[5] if v.startswith("$_")]
                endpoints = {
                    e for v in names for ln in range(s[0], s[1] + 1) for e in reads.get((ln, v), ())
                }
                if not endpoints:
                    continue
                seen, todo = {i}, [i]
                while todo:
                    j = todo.pop()
                    for k in out.get(j, ()):
                        if k not in seen:
                            seen.add(k)
                            todo.append(k)
                for j in sorted(seen):
                    sj = stmts[j]
                    for ln in range(sj[0], sj[1] + 1):
                        for sql in sql_at.get(ln, ()):
                            for e in sorted(endpoints):
                                nid = ids.node_id(NodeKind.HTTP_ENDPOINT, e, None, None)
                                spec = EdgeSpec(props={"via": "def-use", "read_at": s[0]})
                                ctx.add(nid, sql, EdgeKind.FLOWS_TO, f.path, ln, spec)
                                ctx.stats["flow_to_sql"] += 1


def linking(ctx: LinkContext) -> Linking:
    r = Requests(ctx)
    return Linking(handlers={SuperglobalRef: r.on_superglobal}, finish=r.flows)
