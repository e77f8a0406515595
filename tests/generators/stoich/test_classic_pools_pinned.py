"""The classic corpus's reaction pools are pinned: the training, tuning and test reactions stay exactly as they were.

Each pool is hashed as the sha256 of its sorted formula-level reaction keys (formula encoding,
purpose ``products``, the default :class:`~rlvr.generators.stoich.splits.SplitSpec`), joined by newlines.
A change to the classic skeletons, to the balancing or to the splits that moves a reaction into or out
of a pool fails here.
"""
from __future__ import annotations

import hashlib

import pytest

from rlvr.generators.stoich.classic import all_equations
from rlvr.generators.stoich.corpus import get_corpus
from rlvr.generators.stoich.splits import SplitSpec, reaction_pool

#: split -> (number of reactions, sha256 of the sorted formula-level keys)
PINNED = {
    "train": (1274, "e0f5bd39ef4e985e415dde40b0c0bc4538e09168d68d74ea563a644697992f9b"),
    "valid": (152, "45c6f7a452523916aafa90a77bc332cab075094ace0a6e584204b6286493c368"),
    "test": (171, "b900d4102981e219add816e8ba87180433cd8d2bfff23b38aaef2e16ea9d343b"),
}


def pool_keys_hash(keys: list[str]) -> str:
    """sha256 of the sorted keys, one a line."""
    return hashlib.sha256("\n".join(sorted(keys)).encode("utf-8")).hexdigest()


@pytest.mark.parametrize("split", sorted(PINNED))
def test_classic_products_pool_is_pinned(split):
    corpus = get_corpus("classic")
    pool = reaction_pool(corpus, "formula", "products", SplitSpec(), split)
    keys = [corpus.key(i, "formula") for i in pool]
    assert (len(keys), pool_keys_hash(keys)) == PINNED[split]


#: sha256 of the classic skeleton list without the molecule-pool fuels (``repr`` of each equation, in order)
PINNED_SKELETONS = "ab41db8036a05c45f4834097fa3063c769b579ee27e1b8e32648eca5507130c7"


def test_classic_skeletons_are_pinned():
    text = "\n".join(repr(e) for e in all_equations(pool_limit=0))
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == PINNED_SKELETONS
