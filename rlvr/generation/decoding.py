"""How a transformers backend keeps its KV cache: the choices, read by the eval configuration, the
command line and the backend alike (none of them imports another for it)."""
from __future__ import annotations

#: how the transformers backend keeps its KV cache: a growing cache (``dynamic``); transformers' static cache,
#: new on every call (``static``); one static cache kept across calls, with fixed rows and padded prompt lengths
#: (``fixed``, :mod:`rlvr.generation.fixed_shape`; transformers compiles the decoding step of these two on CUDA);
#: rlvr's own loop, each distinct prompt prefilled once, the cache written in place and finished rows dropped
#: (``compact``, :mod:`rlvr.generation.compact`).
DECODINGS = ("dynamic", "static", "fixed", "compact")

__all__ = ["DECODINGS"]
