"""Hostile and malformed completions: what every family's checker must turn into a verdict (never an
exception, never reason ``checker_error``). The conformance checks send each of them to every family."""
from __future__ import annotations

import json

#: length of the long completions (well past any sensible answer)
LONG = 100_000


def _nested_json(depth: int) -> str:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return json.dumps(value)


def hostile_completions() -> list[str]:
    """Completions a policy can write that no checker may raise on (a fresh list each call)."""
    huge = "9" * 5000
    return [
        "",
        " ",
        "<answer>abc</answer>",
        "<answer></answer>",
        "<answer>",
        "</answer>",
        f"<answer>{huge}</answer>",
        f"<answer>-{huge}</answer>",
        "<answer>1e308</answer>",
        "<answer>1e999</answer>",
        "<answer>NaN</answer>",
        "<answer>-inf</answer>",
        "<answer>0x1F</answer>",
        "<answer>-1</answer>",
        "<answer>0</answer>",
        "<answer>3.5</answer>",
        "<answer>{1}</answer>",
        "<answer>{-1}H2O>>{0}H2O</answer>",
        "<answer>{999999999999}C.{1}O</answer>",
        "<answer>>>.>>{}</answer>",
        "<answer>" + "(" * 5000 + "</answer>",
        "<answer>" + "[" * 3000 + "]" * 3000 + "</answer>",
        "<answer>" + _nested_json(500) + "</answer>",
        '<answer>{"smiles": null}</answer>',
        '<answer>{"smiles": 5}</answer>',
        '<answer>{"a": [1, "x", null, {"b": []}]}</answer>',
        "<answer>[1, 2, -3, 1e400]</answer>",
        "<answer>[]</answer>",
        "<answer>{}</answer>",
        "<answer>\ud800\udfff</answer>",
        "<answer>\x00\x01\x7f</answer>",
        "<answer>🧪⚗️💥</answer>",
        "<answer>C" * 50 + "</answer>" * 50,
        "</think>" * 2000 + "<answer>1</answer>",
        "<think>" + "x" * 1000 + "</think><answer>C1CC</answer>",
        "<answer>C1CC(</answer>",
        "<answer>c1ccccc1[Xx]</answer>",
        "x" * LONG,
        "<answer>" + "C" * LONG + "</answer>",
        "<answer>" + "1" * LONG + "</answer>",
    ]


__all__ = ["LONG", "hostile_completions"]
