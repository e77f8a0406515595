"""Reference reactions and their views in an encoding's identity space.

A :class:`Reaction` is stored once, over species of a corpus (each species has a Hill formula and,
when known, a canonical SMILES). Tasks never use it directly: they use a :class:`ReactionView`, the
same reaction written in one encoding, where species that share an identity (isomers in the formula
encoding) are merged by summing their coefficients. A view exists only when the reaction stays a
well-defined, balanced reaction in that space (no species both consumed and formed, no reagent that
is also a reactant or product), so every bag built from it conserves atoms and charge.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from rlvr.chem.balance import conservation_delta
from rlvr.chem.formula import Formula, parse_formula
from rlvr.chem.smiles import smiles_formula
from rlvr.chem.species import ENCODINGS, StrictEncoding as Encoding, canonical_species

Term = tuple[str, int]


@lru_cache(maxsize=131072)
def key_formula(key: str, encoding: Encoding) -> Formula:
    """The composition of a species key (Hill formula or canonical SMILES)."""
    return parse_formula(key) if encoding == "formula" else smiles_formula(key)


def bag_formula_pairs(bag: Mapping[str, int] | Iterable[Term], encoding: Encoding) -> list[tuple[Formula, int]]:
    """``[(Formula, k), ...]`` for a bag of species keys."""
    items = bag.items() if isinstance(bag, Mapping) else bag
    return [(key_formula(s, encoding), int(k)) for s, k in items]


def bag_delta(left: Mapping[str, int], right: Mapping[str, int], encoding: Encoding) -> dict[str, int]:
    """``right - left`` per element and charge (empty when the two bags conserve atoms and charge)."""
    return conservation_delta(bag_formula_pairs(left, encoding), bag_formula_pairs(right, encoding))


def assert_conserves(left: Mapping[str, int], right: Mapping[str, int], encoding: Encoding, what: str) -> None:
    """Raise ``AssertionError`` naming ``what`` unless the bags conserve every element and the charge."""
    delta = bag_delta(left, right, encoding)
    if delta:
        raise AssertionError(f"{what}: atoms/charge not conserved (delta {delta})")


def merge_terms(terms: Iterable[Term]) -> dict[str, int]:
    """Merge equal keys by summing coefficients; keys in first-seen order."""
    out: dict[str, int] = {}
    for key, k in terms:
        out[key] = out.get(key, 0) + int(k)
    return out


def reaction_key(reactants: Iterable[Term], products: Iterable[Term]) -> str:
    """Canonical text key of a reaction: sorted ``k*species`` terms per side (reagents excluded)."""
    left = ".".join(sorted(f"{k}*{s}" for s, k in reactants))
    right = ".".join(sorted(f"{k}*{s}" for s, k in products))
    return f"{left}>>{right}"


@dataclass(eq=False)
class Reaction:
    """A balanced reference reaction over species ids of its corpus.

    ``reactants``/``reagents``/``products`` are ``(species id, coefficient)`` pairs; reagents
    (catalysts, bases, solvents, spectator ions) appear unchanged on both sides. ``byproducts``
    lists species ids among the products that are byproducts (water, HCl, CO2, ...).
    """

    reactants: tuple[tuple[int, int], ...]
    reagents: tuple[tuple[int, int], ...]
    products: tuple[tuple[int, int], ...]
    byproducts: tuple[int, ...]
    rclass: str
    source: str
    product_mw: float
    stereo: bool
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "r": [list(t) for t in self.reactants],
            "g": [list(t) for t in self.reagents],
            "p": [list(t) for t in self.products],
            "b": list(self.byproducts),
            "c": self.rclass,
            "s": self.source,
            "mw": round(float(self.product_mw), 3),
            "st": bool(self.stereo),
        }
        if self.meta:
            out["m"] = self.meta
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Reaction":
        return cls(
            reactants=tuple((int(a), int(b)) for a, b in data["r"]),
            reagents=tuple((int(a), int(b)) for a, b in data.get("g", ())),
            products=tuple((int(a), int(b)) for a, b in data["p"]),
            byproducts=tuple(int(x) for x in data.get("b", ())),
            rclass=str(data["c"]),
            source=str(data["s"]),
            product_mw=float(data["mw"]),
            stereo=bool(data["st"]),
            meta=dict(data.get("m", {})),
        )


@dataclass(frozen=True)
class ReactionView:
    """A reaction in one encoding's identity space (isomers merged in the formula encoding).

    All coefficient maps are ordered by key. ``byproducts`` is a sub-bag of ``products`` (empty when
    the reaction has none or they cannot be told apart from a main product in this encoding).
    """

    encoding: Encoding
    reactants: tuple[Term, ...]
    reagents: tuple[Term, ...]
    products: tuple[Term, ...]
    byproducts: tuple[Term, ...] = ()
    rclass: str = "unknown"
    product_mw: float = 0.0
    stereo: bool = False
    #: (key, Hill formula) of every species, so compositions need no SMILES parsing
    hills: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def composition(self, key: str) -> Formula:
        """The :class:`Formula` of one of the view's species keys."""
        for k, hill in self.hills:
            if k == key:
                return parse_formula(hill)
        return key_formula(key, self.encoding)

    def delta(self, left: Mapping[str, int], right: Mapping[str, int]) -> dict[str, int]:
        """``right - left`` per element and charge for bags over this view's species (empty: conserved)."""
        table = dict(self.hills)

        def pairs(bag: Mapping[str, int]) -> list[tuple[Formula, int]]:
            return [(parse_formula(table[s]) if s in table else key_formula(s, self.encoding), int(k))
                    for s, k in bag.items()]

        return conservation_delta(pairs(left), pairs(right))

    def assert_conserves(self, left: Mapping[str, int], right: Mapping[str, int], what: str) -> None:
        delta = self.delta(left, right)
        if delta:
            raise AssertionError(f"{what}: atoms/charge not conserved (delta {delta})")

    @property
    def key(self) -> str:
        return reaction_key(self.reactants, self.products)

    def as_dict(self) -> dict[str, dict[str, int]]:
        """``{"reactants": {...}, "reagents": {...}, "products": {...}}`` (the task-record form)."""
        return {
            "reactants": dict(self.reactants),
            "reagents": dict(self.reagents),
            "products": dict(self.products),
        }

    @property
    def main_products(self) -> tuple[Term, ...]:
        by = dict(self.byproducts)
        return tuple((s, k) for s, k in self.products if s not in by)

    def species(self) -> list[str]:
        """Every key of the reaction: reactants, reagents, products (each once)."""
        return [s for s, _ in self.reactants] + [s for s, _ in self.reagents] + [s for s, _ in self.products]


def make_view(
    reactants: Sequence[Term] | Mapping[str, int],
    products: Sequence[Term] | Mapping[str, int],
    reagents: Sequence[Term] | Mapping[str, int] = (),
    *,
    encoding: Encoding,
    byproducts: Iterable[str] = (),
    rclass: str = "unknown",
    product_mw: float = 0.0,
    stereo: bool = False,
    canonicalize: bool = True,
) -> ReactionView | None:
    """Build a :class:`ReactionView` from written species, or None when it is not well defined.

    With ``canonicalize`` the species are rewritten as identity keys (Hill formula or canonical
    SMILES) and merged. Returns None when a key is on two sides (reactant and product, or reagent
    and either), a side is empty, or elements/charge are not conserved.
    """
    def norm(terms: Sequence[Term] | Mapping[str, int]) -> dict[str, int]:
        items = terms.items() if isinstance(terms, Mapping) else terms
        if not canonicalize:
            return merge_terms(items)
        return merge_terms((canonical_species(s, encoding), k) for s, k in items)

    r, p, g = norm(reactants), norm(products), norm(reagents)
    if not r or not p or set(r) & set(p) or set(g) & (set(r) | set(p)):
        return None
    if any(k <= 0 for bag in (r, p, g) for k in bag.values()):
        return None
    if bag_delta(r, p, encoding):
        return None
    by_keys = {canonical_species(s, encoding) if canonicalize else s for s in byproducts}
    by = {s: k for s, k in p.items() if s in by_keys}
    if len(by) == len(p):
        by = {}
    return ReactionView(
        encoding=encoding,
        reactants=tuple(sorted(r.items())),
        reagents=tuple(sorted(g.items())),
        products=tuple(sorted(p.items())),
        byproducts=tuple(sorted(by.items())),
        rclass=rclass,
        product_mw=product_mw,
        stereo=stereo,
        hills=tuple(sorted((s, key_formula(s, encoding).hill()) for s in {*r, *p, *g})),
    )


__all__ = [
    "ENCODINGS", "Encoding", "Reaction", "ReactionView", "Term", "assert_conserves", "bag_delta", "bag_formula_pairs",
    "key_formula", "make_view", "merge_terms", "reaction_key",
]
