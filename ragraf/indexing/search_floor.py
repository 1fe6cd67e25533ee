"""Search's abstention floor measured on the corpus itself, at index time (issue 46).

How near a question nothing in the code answers comes to the code depends on the corpus (its
size, its languages, how much prose its comments hold), so an absolute cosine below which
search abstains does not carry from one corpus to another. When a revision's vectors are
complete, ``measure`` embeds ``SAMPLES`` sentences of everyday English words no code is
about (a fixed list, a fixed seed: the same sentences for every corpus) and records the
distribution of their best cosines in the revision's ``vectors`` block (``floor``); search
sets its ``abstain_cosine`` from it (``ragraf.facade.search.candidate.Thresholds``), and a
``calibrate`` on the project's own labelled samples still overrides it.

Invariants a change must keep:
- The sentences and their order depend on nothing but this module (``sentences``): two
  revisions of one corpus, or two corpora, are measured with the same queries.
- The measure reads the revision's vectors only; it embeds the sentences as search embeds a
  query (the model that made the vectors, ``Embedder.embed_query``).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragraf.embed import Embedder
    from ragraf.store.db import Database

#: sentences measured per revision
SAMPLES = 32
#: words per sentence
WORDS = 5
_SEED = 46
#: everyday words no code base is about (no computing sense: no "file", "table", "user"), and
#: none of the words of the nonsense and near-miss questions of bench/search_eval*.yaml
EVERYDAY = (
    "apple", "aunt", "bakery", "banana", "barn", "beach", "beard", "bee", "bicycle", "bird",
    "blanket", "boat", "breakfast", "bride", "butter", "cake", "camel", "candle", "carpet",
    "carrot", "castle", "cat", "cheese", "cherry", "chicken", "chimney", "church", "coat",
    "coffee", "cousin", "cow", "dance", "desert", "dinner", "dog", "donkey", "dress", "duck",
    "eagle", "egg", "elephant", "farmer", "feather", "fishing", "flower", "forest", "fox",
    "frog", "giraffe", "grandmother", "grape", "grass", "guitar", "hat", "hill", "holiday",
    "honey", "horse", "island", "jacket", "jungle", "kitchen", "kitten", "lake", "lemon",
    "lion", "meadow", "milk", "monkey", "mountain", "mushroom", "nephew", "ocean", "onion",
    "orange", "owl", "painting", "pancake", "parrot", "peach", "pear", "pepper", "piano",
    "picnic", "pie", "pig", "pillow", "potato", "pumpkin", "rabbit", "rain", "river", "sailor",
    "salad", "sandwich", "sheep", "shoe", "singer", "skirt", "snow", "soup", "spoon",
    "strawberry", "summer", "sunset", "swim", "tea", "tiger", "tractor", "tree",
    "uncle", "valley", "village", "violin", "wedding", "whale", "wheat", "wolf", "zebra",
)  # fmt: skip


def sentences() -> list[str]:
    """The ``SAMPLES`` sentences measured: ``WORDS`` everyday words each, fixed seed."""
    rng = random.Random(_SEED)
    return [" ".join(rng.sample(EVERYDAY, WORDS)) for _ in range(SAMPLES)]


def _quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def measure(db: Database, emb: Embedder, rev_id: str) -> dict[str, Any] | None:
    """The best cosines of ``sentences`` among the vectors of ``rev_id`` (median, 90th
    percentile, max, samples); None when the revision has no vector."""
    from ragraf.store.vec import VecStore, cosine_of

    vec = VecStore(db, emb.dim)
    best = []
    for text in sentences():
        hits = vec.knn(rev_id, emb.embed_query(text), 1)
        if hits:
            best.append(round(cosine_of(hits[0][1]), 4))
    if not best:
        return None
    return {
        "samples": len(best),
        "median": _quantile(best, 0.5),
        "q90": _quantile(best, 0.9),
        "max": max(best),
    }
