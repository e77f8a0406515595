"""Fingerprint similarity and leader clustering on bit-packed Morgan fingerprints.

Leader (sphere-exclusion) clustering needs O(n x clusters) popcounts on bit-packed fingerprints and
no O(n^2) distance list (Butina would); nearest-neighbour similarities are computed in chunks.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator


def packed_fingerprints(mols: Sequence[Chem.Mol], radius: int = 2, n_bits: int = 512) -> np.ndarray:
    """Morgan fingerprints bit-packed into a ``(n, n_bits // 64)`` uint64 array."""
    if n_bits % 64:
        raise ValueError("n_bits must be a multiple of 64")
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    bits = np.zeros((len(mols), n_bits), dtype=np.uint8)
    for i, mol in enumerate(mols):
        DataStructs.ConvertToNumpyArray(gen.GetFingerprint(mol), bits[i])
    return np.packbits(bits, axis=1).view(np.uint64).reshape(len(mols), n_bits // 64)


def tanimoto_to_many(query: np.ndarray, refs: np.ndarray, ref_counts: np.ndarray | None = None) -> np.ndarray:
    """Tanimoto similarity of one packed fingerprint to each row of ``refs``."""
    inter = np.bitwise_count(refs & query).sum(axis=1, dtype=np.int64)
    if ref_counts is None:
        ref_counts = np.bitwise_count(refs).sum(axis=1, dtype=np.int64)
    union = ref_counts + int(np.bitwise_count(query).sum()) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
    return sim


def nearest_neighbour_similarity(queries: np.ndarray, refs: np.ndarray, chunk: int = 256) -> np.ndarray:
    """For each packed query fingerprint, the maximum Tanimoto similarity to any row of ``refs``."""
    out = np.zeros(len(queries), dtype=np.float64)
    if len(refs) == 0 or len(queries) == 0:
        return out
    ref_counts = np.bitwise_count(refs).sum(axis=1, dtype=np.int64)
    q_counts = np.bitwise_count(queries).sum(axis=1, dtype=np.int64)
    for start in range(0, len(queries), chunk):
        q = queries[start:start + chunk]
        inter = np.zeros((len(q), len(refs)), dtype=np.int64)
        for w in range(refs.shape[1]):
            inter += np.bitwise_count(q[:, w, None] & refs[None, :, w])
        union = q_counts[start:start + chunk, None] + ref_counts[None, :] - inter
        sim = inter / np.maximum(union, 1)
        out[start:start + chunk] = sim.max(axis=1)
    return out


def leader_clusters(fps: np.ndarray, order: Sequence[int], threshold: float) -> tuple[np.ndarray, list[int]]:
    """Leader (sphere-exclusion) clustering: returns (cluster id per molecule, leader molecule per cluster).

    Molecules are visited in ``order``; each joins the most similar leader (first on ties) when
    the similarity is >= ``threshold``, otherwise starts a new cluster.
    """
    n = len(fps)
    assign = np.full(n, -1, dtype=np.int64)
    leaders = np.zeros_like(fps)
    leader_counts = np.zeros(n, dtype=np.int64)
    counts = np.bitwise_count(fps).sum(axis=1, dtype=np.int64)
    leader_ids: list[int] = []
    for i in order:
        n_lead = len(leader_ids)
        if n_lead:
            inter = np.bitwise_count(leaders[:n_lead] & fps[i]).sum(axis=1, dtype=np.int64)
            union = leader_counts[:n_lead] + counts[i] - inter
            sim = inter / np.maximum(union, 1)
            best = int(np.argmax(sim))
            if sim[best] >= threshold:
                assign[i] = best
                continue
        leaders[n_lead] = fps[i]
        leader_counts[n_lead] = counts[i]
        assign[i] = n_lead
        leader_ids.append(int(i))
    return assign, leader_ids


__all__ = ["leader_clusters", "nearest_neighbour_similarity", "packed_fingerprints", "tanimoto_to_many"]
