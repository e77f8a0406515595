"""Molecular features computed by RDKit: graph, rings, stereo, functional groups, BRICS, reaction templates, complexity."""
