"""Fast ``generate`` for eval and RL sampling alike: fixed-shape decoding with one kept static cache
(:mod:`rlvr.generation.fixed_shape`) and attention that never copies grouped KV heads
(:mod:`rlvr.generation.grouped_attention`). Both are opt-in levers; the eager path stays the default."""
