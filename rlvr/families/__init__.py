"""Family modules: one package per family group, the only place that joins a family's generator,
checker, oracle, worked-solution writer, feedback, baselines, prompt styles, eval suite and report
layout into :class:`~rlvr.registry.FamilySpec` hooks."""
