"""Pure checkers ``(task, completion) -> Verdict`` and the multiset metrics they use."""
