"""``rlvr bench``: task, verdict and reward-server throughput measured on the reader's own machine.

- :mod:`rlvr.bench.verdicts`: tasks/s per family, verdicts/s on first and repeated completions, and the
  RDKit parse floor, each half in a fresh process (so every verdict meets molecules new to it);
- :mod:`rlvr.bench.server`: ``rlvr serve-rewards`` on loopback at 1 and N workers under bounded load;
- :mod:`rlvr.bench.report`: the table, the sizing line and the JSON record.
"""
