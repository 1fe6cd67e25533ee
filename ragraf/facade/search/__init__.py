"""search's stages over one pool of typed candidates (travsr low-level design §6; issue 17);
``ragraf.facade.searchop.run_search`` runs them in this order:

1. channels (``channels``): exact symbol anchors, lexical FTS5 matches, the symbol-name
   channel and vector neighbours; every chunk they return is one ``Candidate`` of the pool
   (``candidate``);
2. fuse (``rank``): reciprocal rank fusion of the channels plus the strong signals; then the
   vocabulary expansion (``channels.expansion``: rare corpus words the first fused hits share)
   searched alone and fused below the query's own lists;
3. re-rank (``rank``): the fused top on explained features, then the order of the hits;
4. abstain (``abstain``): the evidence (word coverage, how far the words meet, near in
   meaning) and the confidence, with thresholds ``calibrate`` fits on the same measures;
5. fold (``fold``): a built copy into its source, a symbol's windows into one hit;
6. render (``render``): the result, each hit with its ``why``.

Invariants a change must keep:
- The stages run in this order; each reads what the earlier ones set on the candidates and
  sets its own fields (``candidate``). A stage's own invariants are in its module.
- Exact symbol-name matches come first and say so in ``why``; every feature that moved a hit
  is in its ``why``.
- The pure stages (``words``, ``rank.fuse`` / ``rerank`` / ``order``, ``abstain.confidence``,
  ``fold``) read no store: they are tested on hand-made candidates
  (tests/test_search_stages.py).
"""
