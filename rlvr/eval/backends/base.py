"""The backend interface."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Sequence

from rlvr.task import Task


class BackendUnavailable(RuntimeError):
    """A backend cannot run here (package or hardware missing); the message says how to fix it."""


@dataclass
class Completion:
    """One generated completion; ``n_tokens`` is the number of generated tokens when known."""

    text: str
    n_tokens: int | None = None


class Backend(ABC):
    """Turns tasks into completions. Counts its work (``calls``, ``completions``) for reports and tests."""

    name: str = "backend"
    #: verify a batch on a worker thread while the next batch decodes (worth it where decoding runs on an
    #: accelerator and the host would otherwise sit idle; on a CPU both compete for the same cores)
    overlap_verification: bool = False

    def __init__(self) -> None:
        self.calls = 0
        self.completions = 0

    def generate(self, tasks: Sequence[Task], samples: int) -> list[list[Completion]]:
        """``samples`` completions for each task, in task order."""
        if not tasks:
            return []
        out = self._generate(list(tasks), int(samples))
        if len(out) != len(tasks) or any(len(c) != samples for c in out):
            raise RuntimeError(f"{self.name} backend returned a wrong number of completions")
        self.calls += 1
        self.completions += sum(len(c) for c in out)
        return out

    @abstractmethod
    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        ...

    def prompt_lengths(self, tasks: Sequence[Task]) -> list[int]:
        """Each task's prompt length: characters here; backends that tokenize override it with token counts."""
        return [sum(len(m.get("content", "")) for m in t.prompt) for t in tasks]

    def batching_order(self, tasks: Sequence[Task]) -> list[int]:
        """Indices of ``tasks`` in the order to batch them: longest prompt first (:meth:`prompt_lengths`),
        so a batch's rows have similar lengths (little padding)."""
        lengths = self.prompt_lengths(tasks)
        return sorted(range(len(tasks)), key=lambda i: -lengths[i])

    def estimate_seconds(self, tasks: Sequence[Task], samples: int, batch_size: int) -> float | None:
        """An upper bound on the seconds :meth:`generate` needs for ``tasks`` in batches of ``batch_size``.

        Called once before generation starts (``tasks`` in generation order); may run a short
        calibration but must not change what :meth:`generate` returns. None: unknown.
        """
        return None

    def describe(self) -> dict[str, Any]:
        """What to record about the backend in results.json."""
        return {"backend": self.name}

    def close(self) -> None:
        """Release resources (models, pools)."""
