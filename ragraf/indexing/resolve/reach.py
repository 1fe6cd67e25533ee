"""Which declaration of a function declared more than once a call can reach, by the
include graph of one build (§6.2): computed once per build, before calls are linked.

The model (a request is one run of PHP, from the script a web server or the CLI starts):

- Edges ``a -> b``: an ``include`` / ``require`` in file ``a`` the linker resolved to file
  ``b`` (a literal path, or each candidate of a dynamic one). A *file-level* include (outside
  any function or method; conditional or not) runs whenever its file is loaded; one inside a
  function runs when the function does, in a request that has loaded its file.
- A file's *own declarations* are those of the files its file-level includes load,
  transitively (itself included). PHP declares a function once: an unguarded declaration
  among them is the one every request that loads the file runs (any other declaration of the
  name would be a fatal redeclaration); a declaration under ``if (!function_exists('f'))``
  is a fallback (skipped when the name is declared already).
- Closed world: a file is loaded only by the includes the resolver found, plus, when no
  resolved include reaches it (an entry script, a plugin, an autoloaded class), by one of the
  includes it could not follow (a dynamic path with no literal text or matching too much:
  ``include $plugin``, an autoloader). Such an include inside a function runs in the
  requests of the files that call the function; inside a function no corpus file calls, it
  runs where outside code (itself loaded that way) calls it, so it adds nothing.

So the declarations possible in file ``X`` (``P(X)``), for each function: its own ones when
an unguarded one is among them (the linker then sets the fallbacks aside); else its own
fallbacks plus those possible in the files that include it (for a file no resolved include reaches: in the files whose includes the resolver could not
follow; one round). A call in ``X`` reaches ``P(X)``; when that is empty, every declaration.

Invariants a change must keep:
- Linear-ish: two strongly-connected-component passes (iterative Tarjan) over files and
  include edges, bitsets (one bit per declaration of a duplicated function) OR-ed along them;
  a question is a few integer operations.
- Deterministic: declarations are numbered in sorted order of their node ids.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable


class Loading:
    """``P(X)`` of every file, as bitsets over the declarations of duplicated functions."""

    def __init__(
        self,
        paths: Iterable[str],
        edges: Iterable[tuple[str, str, bool]],
        open_files: Iterable[str],
        functions: Iterable[list[str]],
        decl_paths: dict[str, str],
        guarded: set[str],
    ) -> None:
        """``edges``: (includer, included, file-level?); ``functions``: the declaration ids of
        each function declared more than once."""
        order = sorted(set(paths))
        index = {p: i for i, p in enumerate(order)}
        n = len(order)
        self._index = index
        bit_of: dict[str, int] = {}
        group: list[int] = []  # bit -> mask of its function's declarations
        unguarded = 0
        for fids in sorted(sorted(g) for g in functions):
            mask = 0
            for fid in fids:
                bit_of[fid] = len(group)
                mask |= 1 << len(group)
                group.append(0)
                if fid not in guarded:
                    unguarded |= 1 << bit_of[fid]
            for fid in fids:
                group[bit_of[fid]] = mask
        self.bit_of = bit_of
        self.group = group
        declared = [0] * n
        for fid, bit in bit_of.items():
            at = index.get(decl_paths[fid])
            if at is not None:
                declared[at] |= 1 << bit
        succ: list[set[int]] = [set() for _ in range(n)]
        strong: list[set[int]] = [set() for _ in range(n)]
        has_pred = [False] * n
        for a, b, file_level in edges:
            ia, ib = index.get(a), index.get(b)
            if ia is None or ib is None or ia == ib:
                continue
            succ[ia].add(ib)
            has_pred[ib] = True
            if file_level:
                strong[ia].add(ib)
        # own declarations: along file-level includes, successors first (Tarjan numbers
        # components in reverse topological order)
        comp = _components(n, strong)
        c_own = [0] * (max(comp, default=-1) + 1)
        members: list[list[int]] = [[] for _ in c_own]
        for i, c in enumerate(comp):
            members[c].append(i)
        for c, ms in enumerate(members):
            acc = 0
            for i in ms:
                acc |= declared[i]
                for j in strong[i]:
                    if comp[j] != c:
                        acc |= c_own[comp[j]]
            c_own[c] = acc
        own = [c_own[comp[i]] for i in range(n)]
        self._own = own
        fixed = [0] * n
        for i in range(n):
            u = own[i] & unguarded
            while u:
                low = u & -u
                fixed[i] |= group[low.bit_length() - 1]
                u ^= low
        # possible declarations: a fixpoint along every include (monotone: a file's set only
        # grows), visiting includers first (Tarjan's numbers, descending) so one sweep
        # settles an acyclic graph
        comp = _components(n, succ)
        sweep = sorted(range(n), key=lambda i: (-comp[i], i))
        open_idx = sorted(index[p] for p in set(open_files) if p in index)
        possible = [0] * n
        incoming = [0] * n
        unknown = 0
        for _round in range(2):  # the second with what the unresolved includes may bring
            queued = [True] * n
            work = deque(sweep)
            while work:
                i = work.popleft()
                queued[i] = False
                inc = incoming[i] | (0 if has_pred[i] else unknown)
                p = (own[i] & fixed[i]) | ((own[i] | inc) & ~fixed[i])
                possible[i] = p
                for j in succ[i]:
                    if incoming[j] | p != incoming[j]:
                        incoming[j] |= p
                        if not queued[j]:
                            queued[j] = True
                            work.append(j)
            unknown = 0
            for i in open_idx:
                unknown |= possible[i]
        self._possible = possible
        self._has_pred = has_pred

    def reachable(self, caller: str, fids: list[str]) -> tuple[list[str], str]:
        """The declarations (node ids) a call in file ``caller`` of a function declared as
        ``fids`` may reach, and why: ``file-includes`` (the caller's file-level includes load
        some), ``includers`` (possible in the files that include it), ``unresolved-include``
        (possible where the includes the resolver could not follow are) or
        ``no-include-path`` (the include graph tells nothing: all of them)."""
        i = self._index.get(caller)
        if i is None or not fids:
            return list(fids), "no-include-path"
        mask = self.group[self.bit_of[fids[0]]]
        got = self._possible[i] & mask
        if not got:
            return list(fids), "no-include-path"
        found = [f for f in fids if got >> self.bit_of[f] & 1]
        if self._own[i] & mask:
            why = "file-includes"
        elif self._has_pred[i]:
            why = "includers"
        else:
            why = "unresolved-include"
        return found, why


def _components(n: int, succ: list[set[int]]) -> list[int]:
    """Strongly connected components (iterative Tarjan): the component number of each
    node; components are numbered in reverse topological order."""
    comp = [-1] * n
    low = [0] * n
    num = [-1] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = 0
    n_comp = 0
    for start in range(n):
        if num[start] != -1:
            continue
        work: list[tuple[int, list[int]]] = [(start, sorted(succ[start]))]
        num[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        while work:
            v, todo = work[-1]
            if todo:
                w = todo.pop()
                if num[w] == -1:
                    num[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, sorted(succ[w])))
                elif on_stack[w]:
                    low[v] = min(low[v], num[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == num[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
    return comp
