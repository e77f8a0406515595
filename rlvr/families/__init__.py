"""Family modules: the only place that joins a family's generator, checker, oracle and solution writer."""
