#!/usr/bin/env python3
"""Benchmark the MolecularIQ feature solvers (single process = one core; plain timers, medians).

Compares rlvr's parse-once, cached ``molecule_features`` with recomputing every property from a
fresh ``Chem.MolFromSmiles`` per call (the usual per-property solver style), on molecules from the
RDKit wheel (``NCI/first_5K.smi``).

    python scripts/bench_features.py              # default sizes (about a minute)
    python scripts/bench_features.py -n 200 --repeats 3 --json

Reported rates (median over repeats):
  cold      first call per molecule, empty caches (all keys, including BRICS and products)
  cold_core first call per molecule, core keys only (everything except BRICS leaves and products)
  warm      repeated call, same SMILES string (all keys)
  variant   a new randomised SMILES of an already featurised molecule (all keys)
  one_key   ``feature_value(smiles, key)`` on a warm molecule
  fresh     each feature recomputed from a fresh parse per call (no caching)
  table_row one row of a feature table (``rlvr.chem.molecules.tables.table_row``), empty caches
  table     ``molecule_features(smiles, core keys + BRICS, table=...)`` reading a built table, empty caches
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from rdkit import Chem, RDLogger
from rdkit.Chem import BRICS

from rlvr.chem.smiles import mol_formula
from rlvr.chem.molecules import features as F
from rlvr.chem.molecules import graph as feature_graph
from rlvr.chem.molecules import solvers as S
from rlvr.chem.molecules import tables as T
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.specs import LAZY_KEYS
from rlvr.chem.rdkit_data import molecule_files, read_smiles
from rlvr.chem.molecules.brics import brics_leaves
from rlvr.chem.molecules.reactions import compiled_templates
from rlvr.chem.molecules.functional_groups import compiled_patterns

RDLogger.DisableLog("rdApp.*")


def load_molecules(n: int, offset: int = 0) -> list[str]:
    out: list[str] = []
    for smi in read_smiles(molecule_files()[0]):  # NCI/first_5K.smi
        m = Chem.MolFromSmiles(smi)
        if m is None or not 5 <= m.GetNumHeavyAtoms() <= 50 or "." in smi:
            continue
        out.append(smi)
    return out[offset:offset + n]


# --- the fresh-parse baseline: one calculator per feature, each parsing the SMILES again ---------

def _fresh_calculators() -> dict[str, Callable[[str], Any]]:
    """Feature name -> function(smiles) computing that feature from a fresh parse."""
    calc: dict[str, Callable[[str], Any]] = {}

    def fresh(smiles: str) -> Chem.Mol:
        return Chem.MolFromSmiles(smiles)

    def group(fn: Callable[[Chem.Mol, dict], None]) -> Callable[[str], Any]:
        def run(smiles: str) -> Any:
            v: dict[str, Any] = {}
            fn(fresh(smiles), v)
            return v
        return run

    def atoms(pred: Callable[[Chem.Atom], bool]) -> Callable[[str], Any]:
        return lambda s: [a.GetIdx() for a in fresh(s).GetAtoms() if pred(a)]

    def chain(smiles: str) -> Any:
        m = fresh(smiles)
        adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in m.GetAtoms()]
        return feature_graph.longest_simple_path(adj, [a.GetIdx() for a in m.GetAtoms() if a.GetAtomicNum() == 6])

    def pattern(p: Chem.Mol) -> Callable[[str], Any]:
        return lambda s: fresh(s).GetSubstructMatches(p)

    def reaction(rxn, p: Chem.Mol) -> Callable[[str], Any]:
        def run(s: str) -> Any:
            m = fresh(s)
            return m.GetSubstructMatches(p), rxn.RunReactants((m,), 64)
        return run

    for spec in F.FEATURES.values():
        name = spec.name
        if spec.category in ("graph_topology", "chemistry_typed_topology") and ("ring" in name or name in (
                "bridgehead", "spiro", "fused_ring", "heterocycle")):
            calc[name] = group(S._ring_features)
        elif "stereo" in name:
            calc[name] = group(S._stereo_features)
        elif name.startswith("oxidation_state_"):
            calc[name] = group(S._oxidation)
        elif name.startswith("murcko"):
            calc[name] = group(S._murcko)
    calc.update({
        "chain_termini": atoms(lambda a: a.GetAtomicNum() == 6 and a.GetDegree() == 1),
        "branch_point": atoms(lambda a: a.GetAtomicNum() == 6 and a.GetDegree() >= 3),
        "csp3_carbon": atoms(lambda a: a.GetAtomicNum() == 6 and a.GetHybridization() == Chem.HybridizationType.SP3),
        "longest_carbon_chain": chain,
        "carbon_atom": atoms(lambda a: a.GetAtomicNum() == 6),
        "hetero_atom": atoms(lambda a: a.GetAtomicNum() not in (1, 6)),
        "halogen_atom": atoms(lambda a: a.GetAtomicNum() in (9, 17, 35, 53, 85)),
        "heavy_atom": atoms(lambda a: a.GetAtomicNum() != 1),
        "hydrogen_atom": lambda s: mol_formula(fresh(s)),
        "molecular_formula": lambda s: mol_formula(fresh(s)).hill(),
        "hba": pattern(S.HBOND_PATTERNS["hba"]),
        "hbd": pattern(S.HBOND_PATTERNS["hbd"]),
        "rotatable_bond": pattern(S.STRICT_ROTATABLE),
        "brics_decomposition": lambda s: (BRICS.FindBRICSBonds(fresh(s)), brics_leaves(fresh(s))),
    })
    for name, pats in compiled_patterns():
        calc[f"functional_group_{name}"] = (lambda ps: lambda s: [fresh(s).GetSubstructMatches(p) for p in ps])(pats)
    for name, rxn, pat in compiled_templates():
        base = f"{TEMPLATE_PREFIX}{name}"
        calc[base] = pattern(pat)
        calc[f"{base}_success"] = reaction(rxn, pat)
        calc[f"{base}_products"] = reaction(rxn, pat)
    missing = set(F.FEATURES) - set(calc)
    assert not missing, f"no fresh-parse calculator for {sorted(missing)}"
    return calc


def _keys_of(spec: F.FeatureSpec) -> int:
    return int(bool(spec.count_key)) + int(bool(spec.index_key))


def fresh_pass(mols: list[str], calc: dict[str, Callable[[str], Any]]) -> tuple[float, int]:
    """Every key of every molecule, each from a fresh parse (count and index computed separately)."""
    n_keys = 0
    start = time.perf_counter()
    for smi in mols:
        for spec in F.FEATURES.values():
            for _ in range(_keys_of(spec)):
                calc[spec.name](smi)
                n_keys += 1
    return time.perf_counter() - start, n_keys


def timed(fn: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    n = fn()
    return time.perf_counter() - start, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=300, help="molecules for the rlvr passes")
    ap.add_argument("--fresh-n", type=int, default=40, help="molecules for the fresh-parse baseline")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    mols = load_molecules(args.n)
    rng = random.Random(0)
    variants = []
    for smi in mols:
        m = Chem.MolFromSmiles(smi)
        perm = list(range(m.GetNumAtoms()))
        rng.shuffle(perm)
        variants.append(Chem.MolToSmiles(Chem.RenumberAtoms(m, perm), canonical=False))
    n_keys = len(F.feature_keys())
    core_keys = [k for k in F.feature_keys() if k not in LAZY_KEYS]
    compiled_patterns()
    compiled_templates()
    calc = _fresh_calculators()
    one_key_list = ["ring_count", "hba_index", "functional_group_ketone_count", "longest_carbon_chain_count"]

    results: dict[str, list[float]] = {k: [] for k in
                                       ("cold", "cold_core", "warm", "variant", "one_key", "fresh",
                                        "table_row", "table")}
    table_keys = core_keys + ["brics_decomposition_count"]
    canonical = list(dict.fromkeys(Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in mols))
    with tempfile.TemporaryDirectory() as tmp:
        table = T.load_table(T.build_table(canonical, Path(tmp) / "t.parquet", num_proc=1, show=False))
    for _ in range(args.repeats):
        F.clear_caches()
        dt, _ = timed(lambda: sum(1 for s in canonical if T._row_quiet(s)["error"] is None))
        results["table_row"].append(len(canonical) / dt)
        F.clear_caches()
        dt, _ = timed(lambda: sum(len(F.molecule_features(s, table_keys, table=table)) for s in canonical))
        results["table"].append(len(canonical) / dt)
        F.clear_caches()
        dt, _ = timed(lambda: sum(len(F.molecule_features(s, core_keys)) for s in mols))
        results["cold_core"].append(len(mols) / dt)
        F.clear_caches()
        dt, _ = timed(lambda: sum(len(F.molecule_features(s)) for s in mols))
        results["cold"].append(len(mols) / dt)
        dt, _ = timed(lambda: sum(len(F.molecule_features(s)) for s in mols))
        results["warm"].append(len(mols) / dt)
        dt, _ = timed(lambda: sum(len(F.molecule_features(s)) for s in variants))
        results["variant"].append(len(mols) / dt)
        dt, calls = timed(lambda: sum(1 for s in mols for k in one_key_list if F.feature_value(s, k) is not None))
        results["one_key"].append(calls / dt)
        dt, nk = fresh_pass(mols[: args.fresh_n], calc)
        results["fresh"].append(args.fresh_n / dt)

    med = {k: statistics.median(v) for k, v in results.items()}
    report = {
        "molecules": len(mols), "fresh_molecules": args.fresh_n, "keys_per_molecule": n_keys,
        "core_keys_per_molecule": len(core_keys), "repeats": args.repeats,
        "molecules_per_s": {k: round(v, 1) for k, v in med.items() if k != "one_key"},
        "keys_per_s": {
            "cold": round(med["cold"] * n_keys), "cold_core": round(med["cold_core"] * len(core_keys)),
            "warm": round(med["warm"] * n_keys), "variant": round(med["variant"] * n_keys),
            "one_key": round(med["one_key"]), "fresh": round(med["fresh"] * n_keys),
            "table_row": round(med["table_row"] * n_keys), "table": round(med["table"] * (len(core_keys) + 1)),
        },
        "speedup_vs_fresh": {k: round(med[k] / med["fresh"], 1) for k in ("cold", "warm", "variant")},
        "rdkit": Chem.rdBase.rdkitVersion, "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['molecules']} NCI molecules ({n_keys} keys each; fresh baseline on {args.fresh_n}), "
              f"median of {args.repeats}, one process")
        print(f"{'pass':10s} {'molecules/s':>12s} {'keys/s':>12s}")
        for k in ("cold", "cold_core", "warm", "variant", "fresh", "table_row", "table"):
            print(f"{k:10s} {med[k]:12.1f} {report['keys_per_s'][k]:12d}")
        print(f"{'one_key':10s} {'':12s} {report['keys_per_s']['one_key']:12d}")
        print("speed-up vs fresh parse per key:", report["speedup_vs_fresh"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
