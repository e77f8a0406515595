"""Which listed species of a reaction contribute atoms to its products (reactants) and which do not
(solvents, catalysts, bases, most reagents).

Many public reaction files (USPTO-MIT "mixed", ChemLLMBench) put everything before ``>>``: THF,
DMF, triethylamine and a palladium catalyst sit next to the two molecules that react. Before a
reaction is balanced, each species listed as a reactant is classified:

- **rxnmapper** (optional, ``pip install --no-deps rxnmapper rxn-chem-utils rxn-utils``): the
  attention-guided atom mapper of Schwaller et al. (its ALBERT model ships inside the wheel and
  runs offline on CPU). A species contributes when at least one of its atoms is mapped to a
  product atom. rxnmapper's own tokenizer class no longer works with transformers 5, so the
  model is driven with a small tokenizer of the same vocabulary and regular expression
  (:class:`_SmilesTokenizer`), which reproduces rxnmapper's published example maps.
- **heuristic** (always available, RDKit only): product atoms are explained greedily by maximum
  common substructures. Repeatedly, the species whose MCS with the still unexplained product
  atoms explains most atoms is a reactant, and those atoms are explained; species that explain
  no product atom are not reactants. The MCS compares elements and connectivity, not bond orders
  (bonds change at the reaction centre). Matched atoms count only up to what the species chosen
  so far cannot supply (heavy atoms per element), so a solvent never "explains" atoms the real
  reactants already provide, and atoms matched by a common solvent (:data:`COMMON_SOLVENTS`) count
  half (4-bromotoluene, not the toluene it is dissolved in, supplies a tolyl group). Ties go to
  the species matching more bonds with the same order (DMF, not THF, is the formyl source of a
  formylation), then to a non-solvent, then to the larger share of the species' own atoms
  matched, then to the smaller species.

Every species of the reagent field (the middle of ``a>b>c``) stays a reagent: the three-field
semantics of a file that separates them is kept, only the reactant field is sorted.
"""
from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Sequence

from rdkit import Chem, RDLogger
from rdkit.Chem import rdFMCS

MAPPERS = ("auto", "rxnmapper", "heuristic")
#: seconds RDKit may spend on one maximum-common-substructure search
MCS_TIMEOUT = 2
#: reactions per rxnmapper batch
BATCH_SIZE = 16

_log = logging.getLogger(__name__)

#: weight of the atoms a common solvent explains (THF must not out-explain 1-bromopropane in CCCBr.[OH-]>>CCCO)
SOLVENT_WEIGHT = 0.5
#: common solvents (canonical SMILES): the heuristic weighs what they explain by SOLVENT_WEIGHT, never excludes them
COMMON_SOLVENTS = frozenset({
    "O", "CO", "CCO", "CC(C)O", "CC(C)(C)O", "C1CCOC1", "CC1CCCO1", "C1COCCO1", "CCOCC", "COCCOC", "ClCCl",
    "ClC(Cl)Cl", "ClC(Cl)(Cl)Cl", "ClCCCl", "CN(C)C=O", "CC(=O)N(C)C", "CN1CCCC1=O", "CS(C)=O", "CC#N",
    "CC(C)=O", "CCOC(C)=O", "Cc1ccccc1", "c1ccccc1", "Cc1ccccc1C", "CCCCCC", "CCCCCCC", "C1CCCCC1",
    "c1ccncc1", "CC(=O)O", "CCN(CC)CC", "CCN(C(C)C)C(C)C", "COC(C)(C)C",
})


class RolesUnavailable(RuntimeError):
    """``mapper="rxnmapper"`` was asked for but rxnmapper cannot be imported or loaded."""


@dataclass(frozen=True)
class RoleAssignment:
    """The listed reactant species split into contributors and non-contributors.

    ``method`` is ``rxnmapper`` or ``heuristic`` (``heuristic-fallback`` when rxnmapper failed on
    this reaction); ``confidence`` is rxnmapper's mapping confidence (None for the heuristic).
    """

    reactants: tuple[str, ...]
    spectators: tuple[str, ...]
    method: str
    confidence: float | None = None


def rxnmapper_available() -> bool:
    """Whether the optional rxnmapper package can be imported."""
    try:
        import rxnmapper  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return False
    return True


# --------------------------------------------------------------------------- heuristic


def _element_counts(mol: Chem.Mol) -> Counter:
    return Counter(a.GetAtomicNum() for a in mol.GetAtoms() if a.GetAtomicNum() > 1)


def _heavy(mol: Chem.Mol) -> int:
    return sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() > 1)


def _submol(mol: Chem.Mol, keep: set[int]) -> tuple[Chem.Mol, list[int]]:
    """The product fragment made of the atoms in ``keep`` and the map back to product indices."""
    rw = Chem.RWMol(mol)
    for a in rw.GetAtoms():
        a.SetIntProp("_orig", a.GetIdx())
    for idx in sorted((a.GetIdx() for a in mol.GetAtoms() if a.GetIdx() not in keep), reverse=True):
        rw.RemoveAtom(idx)
    frag = rw.GetMol()
    return frag, [a.GetIntProp("_orig") for a in frag.GetAtoms()]


def _mcs(species: Chem.Mol, frag: Chem.Mol, bonds: Any) -> Any:
    params = rdFMCS.MCSParameters()
    params.AtomTyper = rdFMCS.AtomCompare.CompareElements
    params.BondTyper = bonds
    params.BondCompareParameters.RingMatchesRingOnly = False
    params.AtomCompareParameters.MatchChiralTag = False
    params.Timeout = MCS_TIMEOUT
    return rdFMCS.FindMCS([species, frag], params)


def _mcs_cover(species: Chem.Mol, product: Chem.Mol, uncovered: set[int]) -> tuple[set[int], int]:
    """Product atoms (among ``uncovered``) matched by the largest common substructure with
    ``species`` (any bond orders), and the number of bonds of the same-order MCS."""
    frag, back = _submol(product, uncovered)
    if frag.GetNumAtoms() == 0 or species.GetNumAtoms() == 0:
        return set(), 0
    elements = {a.GetAtomicNum() for a in species.GetAtoms()}
    if not any(a.GetAtomicNum() in elements for a in frag.GetAtoms()):
        return set(), 0
    result = _mcs(species, frag, rdFMCS.BondCompare.CompareAny)
    query = Chem.MolFromSmarts(result.smartsString) if result.numAtoms else None
    if query is None:
        return set(), 0
    match = frag.GetSubstructMatch(query)
    same_order = _mcs(species, frag, rdFMCS.BondCompare.CompareOrder).numBonds if result.numBonds else 0
    return {back[i] for i in match}, same_order


def _sanitized(smiles: str) -> Chem.Mol | None:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        mol = Chem.MolFromSmiles(smiles, sanitize=False)
        if mol is not None:
            mol.UpdatePropertyCache(strict=False)
    return mol


def heuristic_roles(reactants: Sequence[str], products: Sequence[str]) -> RoleAssignment:
    """Split ``reactants`` (SMILES) by greedy maximum-common-substructure cover of ``products``."""
    RDLogger.DisableLog("rdApp.*")
    species = {s: _sanitized(s) for s in dict.fromkeys(reactants)}
    prods = [m for m in (_sanitized(p) for p in products) if m is not None]
    if not prods:
        return RoleAssignment(tuple(species), (), "heuristic")
    product = prods[0]
    for extra in prods[1:]:
        product = Chem.CombineMols(product, extra)
    uncovered = {a.GetIdx() for a in product.GetAtoms() if a.GetAtomicNum() > 1}
    chosen: list[str] = []
    left = [s for s, m in species.items() if m is not None and _heavy(m) > 0]
    deficit = _element_counts(product)
    while uncovered and left:
        best: tuple[tuple[Any, ...], str, set[int]] | None = None
        for s in left:
            mol = species[s]
            cover, same_order = _mcs_cover(mol, product, uncovered)
            by_element = Counter(product.GetAtomWithIdx(i).GetAtomicNum() for i in cover)
            useful = sum(min(k, max(deficit.get(el, 0), 0)) for el, k in by_element.items())
            if not useful:
                continue
            n = _heavy(mol)
            weight = SOLVENT_WEIGHT if s in COMMON_SOLVENTS else 1.0
            key = (useful * weight, same_order, s not in COMMON_SOLVENTS, len(cover) / n, -n)
            if best is None or key > best[0]:
                best = (key, s, cover)
        if best is None:
            break
        chosen.append(best[1])
        left.remove(best[1])
        uncovered -= best[2]
        deficit.subtract(_element_counts(species[best[1]]))
    spectators = tuple(s for s in species if s not in chosen)
    return RoleAssignment(tuple(s for s in species if s in chosen), spectators, "heuristic")


# --------------------------------------------------------------------------- rxnmapper


class _SmilesTokenizer:
    """The part of a Hugging Face tokenizer rxnmapper uses: its vocabulary and SMILES regex."""

    cls_token, sep_token, pad_token, unk_token = "[CLS]", "[SEP]", "[PAD]", "[UNK]"

    def __init__(self, vocab_file: str) -> None:
        from rxnmapper.tokenization_smiles import BasicSmilesTokenizer, load_vocab

        self.vocab = load_vocab(vocab_file)
        self.basic_tokenizer = BasicSmilesTokenizer()

    def _ids(self, text: str) -> list[int]:
        unk = self.vocab[self.unk_token]
        body = [self.vocab.get(t, unk) for t in self.basic_tokenizer.tokenize(text)]
        return [self.vocab[self.cls_token], *body, self.vocab[self.sep_token]]

    def batch_encode_plus(self, texts: Sequence[str], padding: bool = True, return_tensors: str = "pt") -> dict[str, Any]:
        import torch

        seqs = [self._ids(t) for t in texts]
        width = max(len(s) for s in seqs)
        pad = self.vocab[self.pad_token]
        ids = [s + [pad] * (width - len(s)) for s in seqs]
        mask = [[1] * len(s) + [0] * (width - len(s)) for s in seqs]
        return {"input_ids": torch.tensor(ids), "token_type_ids": torch.zeros(len(ids), width, dtype=torch.long),
                "attention_mask": torch.tensor(mask)}


@lru_cache(maxsize=1)
def _mapper() -> Any:
    """The rxnmapper model (loaded once per process from the files inside the wheel)."""
    try:
        from rxnmapper import core
    except Exception as exc:  # noqa: BLE001
        raise RolesUnavailable(f"rxnmapper is not importable: {exc}") from exc

    class _Mapper(core.RXNMapper):
        def _load_model_and_tokenizer(self) -> tuple[Any, Any]:
            model_class = core.MODEL_TYPE_DICT[self.model_type]
            model = model_class.from_pretrained(self.model_path, output_attentions=True, attn_implementation="eager")
            return model, _SmilesTokenizer(os.path.join(self.model_path, "vocab.txt"))

    import transformers

    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    try:
        return _Mapper()
    except Exception as exc:  # noqa: BLE001
        raise RolesUnavailable(f"rxnmapper could not load its model: {exc}") from exc
    finally:
        transformers.logging.set_verbosity(verbosity)


def _canonical(smiles: str) -> str:
    mol = _sanitized(smiles)
    if mol is None:
        return smiles
    for a in mol.GetAtoms():
        a.SetAtomMapNum(0)
    return Chem.MolToSmiles(mol)


def _contributors_from_map(mapped: str) -> set[str]:
    """Canonical SMILES of the reactant molecules with at least one atom mapped into a product."""
    left = mapped.split(">>")[0].split(" |")[0]
    out: set[str] = set()
    for frag in left.replace("~", ".").split("."):
        mol = Chem.MolFromSmiles(frag, sanitize=False)
        if mol is not None and any(a.GetAtomMapNum() > 0 for a in mol.GetAtoms()):
            out.add(_canonical(frag))
    return out


def rxnmapper_roles(reactions: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[RoleAssignment | None]:
    """rxnmapper roles for many ``(reactants, products)`` pairs; None where mapping failed."""
    mapper = _mapper()
    out: list[RoleAssignment | None] = []
    for start in range(0, len(reactions), BATCH_SIZE):
        batch = reactions[start:start + BATCH_SIZE]
        texts = [".".join(r) + ">>" + ".".join(p) for r, p in batch]
        try:
            results = mapper.get_attention_guided_atom_maps(texts)
        except Exception:  # noqa: BLE001 - one bad reaction spoils the batch: map one by one
            results = []
            for text in texts:
                try:
                    results.extend(mapper.get_attention_guided_atom_maps([text]))
                except Exception:  # noqa: BLE001
                    results.append(None)
        for (reactants, _), res in zip(batch, results):
            if not res:
                out.append(None)
                continue
            mapped = _contributors_from_map(res["mapped_rxn"])
            keep = tuple(s for s in dict.fromkeys(reactants) if _canonical(s) in mapped)
            if not keep:
                out.append(None)
                continue
            spectators = tuple(s for s in dict.fromkeys(reactants) if s not in keep)
            out.append(RoleAssignment(keep, spectators, "rxnmapper", float(res.get("confidence", 0.0))))
    return out


def assign_roles_many(reactions: Iterable[tuple[Sequence[str], Sequence[str]]], mapper: str = "auto") -> list[RoleAssignment]:
    """Roles of the reactant species of many reactions (``mapper``: auto, rxnmapper or heuristic).

    ``auto`` uses rxnmapper when it is installed and falls back to the heuristic when it is not,
    or for a reaction it cannot map (too long for its 512 tokens, unusual SMILES).
    """
    if mapper not in MAPPERS:
        raise ValueError(f"unknown role mapper {mapper!r}; use one of {', '.join(MAPPERS)}")
    items = [(tuple(r), tuple(p)) for r, p in reactions]
    mapped: list[RoleAssignment | None] = [None] * len(items)
    fallback = "heuristic"
    if mapper == "rxnmapper" or (mapper == "auto" and rxnmapper_available()):
        try:
            mapped = rxnmapper_roles(items)
            fallback = "heuristic-fallback"
        except RolesUnavailable:
            if mapper == "rxnmapper":
                raise
            _log.warning("rxnmapper unavailable; assigning roles with the MCS heuristic")
    out = []
    for (reactants, products), got in zip(items, mapped):
        if got is None:
            got = heuristic_roles(reactants, products)
            got = RoleAssignment(got.reactants, got.spectators, fallback if fallback != "heuristic" else "heuristic")
        out.append(got)
    return out


def assign_roles(reactants: Sequence[str], products: Sequence[str], mapper: str = "auto") -> RoleAssignment:
    """Roles of the reactant species of one reaction (see :func:`assign_roles_many`)."""
    return assign_roles_many([(reactants, products)], mapper)[0]
