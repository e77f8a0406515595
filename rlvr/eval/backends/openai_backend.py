"""The ``openai`` backend: any OpenAI-compatible ``/chat/completions`` endpoint, over plain HTTP.

Works with API providers and with served checkpoints (vLLM, SGLang, llama.cpp, TGI ...). The API key,
if any, is read from the environment variable named by ``api_key_env`` (default ``OPENAI_API_KEY``) and
sent as a bearer token; it is never written to results.
"""
from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rlvr.eval.backends.base import Backend, Completion
from rlvr.rng import stable_hash
from rlvr.task import Task

log = logging.getLogger(__name__)

#: HTTP statuses worth retrying
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class EndpointError(RuntimeError):
    """The endpoint answered with an error that retrying does not fix."""


def chat_completions_url(base_url: str) -> str:
    """``http://host:port`` -> ``http://host:port/v1/chat/completions``; ``.../v1`` -> ``.../v1/chat/completions``."""
    base = base_url.strip().rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    parsed = urllib.parse.urlparse(base)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"--base-url must be an http(s) URL, got {base_url!r}")
    if parsed.path in ("", "/"):
        base += "/v1"
    return base + "/chat/completions"


class OpenAIBackend(Backend):
    """Posts one chat-completion request per task (``n`` = samples), ``concurrency`` requests at a time.

    Servers that ignore ``n`` are asked again until every task has its samples. Transient failures
    (connection errors, 429, 5xx) are retried with exponential backoff.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 0.95,
        seed: int = 0,
        timeout: float = 120.0,
        concurrency: int = 4,
        retries: int = 4,
        backoff: float = 1.0,
    ) -> None:
        super().__init__()
        self.url = chat_completions_url(base_url)
        self.model = model
        self.api_key_env = api_key_env
        self._api_key = os.environ.get(api_key_env) if api_key_env else None
        self.max_new_tokens = int(max_new_tokens)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.seed = int(seed)
        self.timeout = float(timeout)
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.backoff = float(backoff)
        self.requests = 0

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                self.requests += 1
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:500]
                if exc.code not in RETRY_STATUSES or attempt == self.retries:
                    raise EndpointError(f"{self.url}: HTTP {exc.code}: {detail}") from exc
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.retries:
                    raise EndpointError(f"{self.url}: {exc}") from exc
            except json.JSONDecodeError as exc:
                raise EndpointError(f"{self.url}: response is not JSON ({exc})") from exc
            log.warning("request to %s failed (attempt %d), retrying in %.0f s", self.url, attempt + 1, delay)
            time.sleep(delay)
            delay = min(delay * 2, 30.0)
        raise EndpointError(f"{self.url}: no response")  # pragma: no cover

    def _one(self, task: Task, samples: int) -> list[Completion]:
        got: list[Completion] = []
        attempt = 0
        while len(got) < samples:
            want = samples - len(got)
            body: dict[str, Any] = {
                "model": self.model,
                "messages": task.prompt,
                "max_tokens": self.max_new_tokens,
                "temperature": self.temperature,
                "n": want,
                "seed": stable_hash("rlvr-eval", self.seed, task.id, attempt) % (2**31),
            }
            if self.temperature > 0:
                body["top_p"] = self.top_p
            reply = self._post(body)
            choices = reply.get("choices") or []
            if not choices:
                raise EndpointError(f"{self.url}: reply without choices: {json.dumps(reply)[:300]}")
            usage = reply.get("usage") or {}
            tokens = usage.get("completion_tokens")
            per = int(tokens) // len(choices) if isinstance(tokens, int) and choices else None
            for choice in choices[:want]:
                message = choice.get("message") or {}
                content = message.get("content")
                reasoning = message.get("reasoning_content") or message.get("reasoning")
                text = content if isinstance(content, str) else ""
                if isinstance(reasoning, str) and reasoning and "</think>" not in text:
                    text = f"<think>{reasoning}</think>{text}"
                got.append(Completion(text, n_tokens=per))
            attempt += 1
        return got

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        if self.concurrency == 1 or len(tasks) == 1:
            return [self._one(t, samples) for t in tasks]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(tasks))) as pool:
            return list(pool.map(lambda t: self._one(t, samples), tasks))

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "url": self.url, "api_key_env": self.api_key_env,
                "api_key_set": bool(self._api_key)}
