"""The typed records search passes from stage to stage: one ``Candidate`` per chunk any channel
returned, the ``Pool`` that holds them, the ``Scope`` that filters hits, and the search's
``Settings`` (with the abstention ``Thresholds``).

Invariants a change must keep:
- One candidate per chunk id: ``Pool.add`` returns the candidate already there. The pool keeps
  the order in which the channels first returned the chunks.
- A candidate's fields are filled by the stages in order and not reset afterwards: the
  channels (``exact``, ``bm25``, ``tokens`` / ``matched``, ``cosine``, ``name_score``), fusion
  (``ranks``, ``fused``, ``strong``), the re-rank (``features``, ``final``; and the tokens and
  cosine of a top candidate a channel did not read), the fold (``windows``,
  ``built_copies``). ``render.why`` explains a hit from these fields alone.
- ``fused`` is set only on candidates the scope accepts (``rank.fuse``): every fused candidate
  can be a hit. ``exact`` marks the accepted chunks of the exact symbol anchors.
- ``matched`` is None until the candidate's words were read for ranking (by a lexical channel
  or the re-rank); the term coverage of the abstention counts the candidates that have it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from ragraf.config import SearchConfig
from ragraf.model import ChunkRef, NodeRow


class Channel(StrEnum):
    """A ranked list fused by reciprocal rank; the value names it in ``why``
    (``<value>_rank``) and in ``search.strong_channels``."""

    LEXICAL = "lexical"
    VECTOR = "vector"
    NAME = "name"
    EXPANSION = "expansion"
    UI = "ui"
    NEIGHBOUR = "neighbour"


class StrongSignal(NamedTuple):
    """A candidate its channel scores ``z`` standard deviations above the channel's mean."""

    channel: Channel
    z: float


class Features(NamedTuple):
    """The re-rank's features of one candidate, each in [0, 1] (``rank.rerank``); the field
    order is the order they are summed and shown in ``why.rerank``."""

    rrf: float
    name: float
    coverage: float
    cosine: float
    bm25: float
    centrality: float
    definition: float
    abstract: float
    vendored: float


@dataclass(eq=False, slots=True)
class Candidate:
    """One chunk a channel returned, and everything the stages learn about it."""

    chunk: ChunkRef
    node: NodeRow | None = None
    #: an accepted chunk of a symbol the query names exactly (an anchor: first, score 1000)
    exact: bool = False
    #: the lexical channel's score (-bm25, higher is better); None: it did not return the chunk
    bm25: float | None = None
    #: the chunk's lexicon tokens (symbol, code, SQL and text columns), once read
    tokens: str | None = None
    #: the query terms the tokens hold (``words.matched_terms``), once read for ranking
    matched: list[str] | None = None
    #: cosine to the query: a vector neighbour's, or read for a re-ranked candidate
    cosine: float | None = None
    #: the query terms its user-facing text holds (the ``ui`` channel returned it)
    ui_matched: list[str] | None = None
    #: how it came next to a first hit (the ``neighbour`` channel): "calls X", "called by X",
    #: "member of X", "holds X", or "name shares <words>"
    neighbour_of: str | None = None
    #: how well the query's words name the chunk's symbol (``words.name_match``)
    name_score: float = 0.0
    name_how: str = ""
    #: its rank in each fused channel (among the accepted chunks of that channel)
    ranks: dict[Channel, int] = field(default_factory=dict)
    #: the fused reciprocal-rank score; None: no channel fused it (not accepted, or an anchor
    #: no channel returned)
    fused: float | None = None
    strong: list[StrongSignal] = field(default_factory=list)
    features: Features | None = None
    final: float | None = None
    #: the start lines of the symbol's windows found (on the window that stands for them)
    windows: list[int] | None = None
    #: ``path:line`` of the built copies folded into this source
    built_copies: list[str] | None = None

    @property
    def id(self) -> str:
        return self.chunk.chunk_id

    @property
    def kind(self) -> str:
        """The symbol's kind, or the chunk's source kind for a chunk without a node."""
        return self.node.kind if self.node is not None else self.chunk.source_kind

    @property
    def place(self) -> str:
        """Where its words count together: its symbol (all the symbol's chunks), else itself."""
        return self.chunk.node_id or self.chunk.chunk_id


class Pool:
    """The candidates of one query, one per chunk id, in the order the channels first
    returned them, and the nodes read for them."""

    def __init__(self) -> None:
        self._by_id: dict[str, Candidate] = {}
        self._nodes: dict[str, NodeRow] = {}

    def add(self, ref: ChunkRef) -> Candidate:
        """The candidate of ``ref``'s chunk, new or already there."""
        c = self._by_id.get(ref.chunk_id)
        if c is None:
            node = self._nodes.get(ref.node_id) if ref.node_id else None
            c = self._by_id[ref.chunk_id] = Candidate(ref, node)
        return c

    def get(self, chunk_id: str) -> Candidate | None:
        return self._by_id.get(chunk_id)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._by_id

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def node(self, node_id: str) -> NodeRow | None:
        return self._nodes.get(node_id)

    def nodes_to_read(self) -> list[str]:
        """The node ids of candidates whose node has not been read."""
        return [
            c.chunk.node_id for c in self if c.chunk.node_id and c.chunk.node_id not in self._nodes
        ]

    def give_nodes(self, nodes: Mapping[str, NodeRow]) -> None:
        """Attach ``nodes`` (by node id) to their candidates, and to any added later."""
        self._nodes.update(nodes)
        for c in self:
            if c.node is None and c.chunk.node_id:
                c.node = self._nodes.get(c.chunk.node_id)

    def fused(self) -> list[Candidate]:
        """The fused candidates, best first (fused score, then chunk id)."""
        return sorted(
            (c for c in self if c.fused is not None), key=lambda c: (-(c.fused or 0.0), c.id)
        )


@dataclass(frozen=True)
class Scope:
    """Which chunks may be hits: those of a language's files (``suffixes``; None: any file)
    and of ``kinds`` (the symbol's kind, or the chunk's source kind; empty: any)."""

    suffixes: tuple[str, ...] | None = None
    kinds: AbstractSet[str] = frozenset()

    def accepts(self, c: Candidate) -> bool:
        if self.suffixes is not None and not c.chunk.path.endswith(self.suffixes):
            return False
        return not (self.kinds and c.kind not in self.kinds)


@dataclass(frozen=True)
class Thresholds:
    """When search abstains (``abstain.confidence``): best cosines and idf-weighted shares of
    the query's words, and the words too generic to answer alone."""

    abstain_cosine: float
    promote_cosine: float
    coverage_cosine: float
    min_term_coverage: float
    near_cosine: float
    min_near_meet: float
    generic_words: frozenset[str]
    agree_cosine: float = 1.01

    @classmethod
    def of(cls, cfg: SearchConfig) -> Thresholds:
        return cls(
            abstain_cosine=cfg.abstain_cosine,
            promote_cosine=cfg.promote_cosine,
            coverage_cosine=cfg.coverage_cosine,
            min_term_coverage=cfg.min_term_coverage,
            near_cosine=cfg.near_cosine,
            min_near_meet=cfg.min_near_meet,
            generic_words=frozenset(s.lower() for s in cfg.generic_words),
            agree_cosine=cfg.agree_cosine,
        )


@dataclass(frozen=True)
class Settings:
    """The ``search`` section of project.yaml with the latest calibration applied, typed
    (config/project.yaml says what each one does)."""

    candidates: int
    rrf_k: int
    bm25_weights: dict[str, float]
    stopwords: frozenset[str]
    function_words: frozenset[str]
    name_weight: float
    strong_channels: tuple[Channel, ...]
    strong_z: float
    expansion_terms: int
    expansion_weight: float
    rerank_top: int
    rerank_weights: dict[str, float]
    vendored_paths: tuple[str, ...]
    near_band: float
    thresholds: Thresholds
    ui_weight: float = 0.5
    neighbour_seeds: int = 0
    neighbour_weight: float = 0.5

    @classmethod
    def of(cls, cfg: SearchConfig) -> Settings:
        return cls(
            candidates=cfg.candidates,
            rrf_k=cfg.rrf_k,
            bm25_weights=cfg.bm25_weights,
            stopwords=frozenset(s.lower() for s in cfg.stopwords),
            function_words=frozenset(w.lower() for w in cfg.function_words),
            name_weight=cfg.name_weight,
            strong_channels=tuple(Channel(c) for c in cfg.strong_channels),
            strong_z=cfg.strong_z,
            expansion_terms=cfg.expansion_terms,
            expansion_weight=cfg.expansion_weight,
            rerank_top=cfg.rerank_top,
            rerank_weights=dict(cfg.rerank_weights),
            vendored_paths=cfg.vendored_paths,
            near_band=cfg.near_band,
            thresholds=Thresholds.of(cfg),
            ui_weight=cfg.ui_weight,
            neighbour_seeds=cfg.neighbour_seeds,
            neighbour_weight=cfg.neighbour_weight,
        )
