"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rlvr.api import oracle_completion
from rlvr.eval import load_eval_set, run_eval
from rlvr.eval.backends.openai_backend import EndpointError, OpenAIBackend, chat_completions_url


class _Stub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers: dict[str, str] = {}
        self.requests: list[tuple[str, dict, dict]] = []
        self.failures = 0  # answer this many requests with HTTP 503 first
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append((self.path, dict(self.headers), body))
            fail = server.failures > 0
            server.failures -= fail
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": "not found"})
        if fail:
            return self._send(503, {"error": "busy"})
        user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        # reasoning first, with a decoy answer inside it that must be ignored; one choice whatever `n` asks
        content = "<think>maybe <answer>{1}X</answer></think>" + server.answers[user]
        self._send(200, {
            "id": "cmpl-1", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17},
        })

    def _send(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    server = _Stub()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_url_normalisation():
    assert chat_completions_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000/v1/chat/completions"
    assert chat_completions_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("https://api.x.org/v1/chat/completions") == "https://api.x.org/v1/chat/completions"
    with pytest.raises(ValueError):
        chat_completions_url("127.0.0.1:8000")


def test_openai_backend_end_to_end(stub, make_config, monkeypatch):
    monkeypatch.setenv("RLVR_TEST_KEY", "sk-test-123")
    config = make_config(backend="openai", base_url=f"http://127.0.0.1:{stub.server_port}", model="stub-model",
                         suite="stoich", splits=("in", "test"), limit=1, samples=2, api_key_env="RLVR_TEST_KEY",
                         max_new_tokens=64, concurrency=3)
    tasks = [t for _, t in load_eval_set(config)[0]]
    stub.answers = {t.user_text: oracle_completion(t) for t in tasks}
    result = run_eval(config)
    assert len(result.records) == len(tasks)
    assert result.summary["stoich/overall/in/EM"] == 100.0
    assert all(r["correct"] for rec in result.records for r in rec["rollouts"])
    # the server ignored n=2, so every task was asked twice
    assert len(stub.requests) == 2 * len(tasks)
    path, headers, body = stub.requests[0]
    assert headers["Authorization"] == "Bearer sk-test-123"
    assert body["model"] == "stub-model" and body["max_tokens"] == 64 and body["n"] in (1, 2)
    assert body["messages"] == next(t.prompt for t in tasks if t.user_text == body["messages"][-1]["content"])
    assert result.results["model_info"]["api_key_set"] is True
    assert "sk-test-123" not in (result.out_dir / "results.json").read_text()


def test_retries_transient_errors_and_reports_permanent_ones(stub, make_config):
    config = make_config(backend="openai", base_url=f"http://127.0.0.1:{stub.server_port}/v1", model="m",
                         suite="stoich", splits=("in",), limit=1)
    tasks = [t for _, t in load_eval_set(config)[0]][:1]
    stub.answers = {t.user_text: oracle_completion(t) for t in tasks}
    stub.failures = 2
    backend = OpenAIBackend(config.base_url, "m", backoff=0.01)
    out = backend.generate(tasks, 1)
    assert out[0][0].text.endswith(oracle_completion(tasks[0]))
    assert backend.requests == 3
    bad = OpenAIBackend(f"http://127.0.0.1:{stub.server_port}/other", "m", backoff=0.01, retries=1)
    with pytest.raises(EndpointError, match="404"):
        bad.generate(tasks, 1)
