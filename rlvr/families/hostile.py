"""Hostile and malformed completions: what every family's checker must turn into a verdict (never an
exception, never reason ``checker_error``). The conformance checks send each of them to every family.

The corpus is family-agnostic: it mixes the answer formats of every family (coefficients, formulas,
reactions, SMILES, index lists, JSON) with runaway numbers, long and deep text, odd code points and
repeated tags. It is deterministic (no randomness) and bounded: :data:`MAX_TOTAL_CHARS` caps its size.
Its JSON puts bad values under the built-in families' keys only; :mod:`rlvr.families.derived` writes
them under a family's own keys, from its oracle answer.
"""
from __future__ import annotations

import json

#: length of the long completions (well past any sensible answer)
LONG = 100_000
#: digits of a runaway integer (past Python's default 4,300-digit int/str conversion limit)
HUGE_DIGITS = 5_001
#: nesting depth of the deep brackets and JSON (past Python's default recursion limit)
DEEP = 5_000
#: a bound on the corpus's total size in characters
MAX_TOTAL_CHARS = 3_000_000


def _nested_json(depth: int, *, key: str = "a") -> str:
    """``depth`` nested objects, written without recursion (``json.dumps`` would recurse)."""
    return f'{{"{key}": ' * depth + "1" + "}" * depth


def _answer(body: str) -> str:
    return f"<answer>{body}</answer>"


def _numbers() -> list[str]:
    huge = "9" * HUGE_DIGITS
    return [
        _answer(huge), _answer("-" + huge), _answer("9" * 5000),
        _answer(f"{{{huge}}}CH4"), _answer(f"{huge}CH4"), _answer(f"{{{huge}}}CH4 + {{2}}O2 -> {{1}}CO2 + {{2}}H2O"),
        _answer(f"{{1}}CH4 + {{2}}O2 -> {{1}}CO2 + {{{huge}}}H2O"), _answer(f"C{huge}H4"), _answer(f"CH{huge}"),
        _answer(f"[{huge}]"), _answer(f"[1, {huge}, 2]"), _answer(f'{{"count": {huge}}}'),
        _answer(f"{huge}.{huge}"), _answer(f"1e{huge}"), _answer("0." + "0" * HUGE_DIGITS + "1"),
        _answer("1e308"), _answer("-1e308"), _answer("1e999"), _answer("1e-999"), _answer("1.7976931348623157e308"),
        _answer("NaN"), _answer("nan"), _answer("inf"), _answer("-inf"), _answer("Infinity"), _answer("-0"),
        _answer("0x1F"), _answer("0b101"), _answer("1_000"), _answer("١٢٣"), _answer("²"), _answer("½"),
        _answer("-1"), _answer("0"), _answer("3.5"), _answer("1/2"), _answer("+7"), _answer("  42  "),
        _answer("{1}"), _answer("{-1}H2O>>{0}H2O"), _answer("{0}CH4 + {0}O2 -> {0}CO2 + {0}H2O"),
        _answer("{1.5}CH4 + {2}O2 -> {1}CO2 + {2}H2O"), _answer("{1e308}CH4 + {2}O2 -> {1}CO2 + {2}H2O"),
        _answer("{NaN}CH4"), _answer("{999999999999}C.{1}O"), _answer("{18446744073709551617}H2"),
        _answer("[1, 2, -3, 1e400]"), _answer("[NaN, Infinity, -Infinity]"), _answer("[1.5, 2.5]"),
        _answer("[" + ", ".join(["9" * 40] * 200) + "]"), _answer(", ".join(str(i) for i in range(5000))),
        _answer('{"count": 1e308}'), _answer('{"count": NaN}'), _answer('{"count": -1}'), _answer('{"count": true}'),
        _answer("C" + "9" * 400 + "H" + "9" * 400), _answer(f'{{"CH4": "{huge}"}}'), _answer(f'["{huge}", "1"]'),
        _answer(f'{{"CH4": {huge}}}'), _answer(f'{{"count": "{huge}"}}'), _answer(f"count: {huge}"),
        _answer(f"[{huge}, 1]"), _answer(f"{huge} CH4 + O2"), _answer(f"{huge}:1:2"), _answer("0" * HUGE_DIGITS + "1 CH4"),
    ]


def _structures() -> list[str]:
    return [
        _answer("(" * DEEP), _answer(")" * DEEP), _answer("[" * 3000 + "]" * 3000), _answer("{" * DEEP + "}" * DEEP),
        _answer("(" * 2000 + "H2O" + ")" * 2000), _answer("C" + "(C" * 2000 + ")" * 2000),
        _answer("Ca(" * 1000 + "OH" + ")2" * 1000),
        _answer(_nested_json(500)), _answer(_nested_json(DEEP)), _answer("[" * DEEP + "1" + "]" * DEEP),
        _answer('{"smiles": null}'), _answer('{"smiles": 5}'), _answer('{"smiles": ["C", "O"]}'),
        _answer('{"smiles": {"smiles": "C"}}'), _answer('{"a": [1, "x", null, {"b": []}]}'),
        _answer('{"a": 1, "a": 2}'), _answer('{"": ""}'), _answer('{"a": 1'), _answer('"C"'), _answer("null"),
        _answer("true"), _answer("[]"), _answer("{}"), _answer("[[[]]]"), _answer("[null]"), _answer('["1", "2"]'),
        _answer("{" + ", ".join(f'"k{i}": {i}' for i in range(5000)) + "}"),
        _answer(">>"), _answer(">>.>>{}"), _answer("->"), _answer("-> -> ->"), _answer("+ + +"), _answer("="),
        _answer("." * 1000), _answer("+" * 1000), _answer(">" * 1000), _answer("{}" * 1000),
        _answer(" + ".join(["{1}H2"] * 2000) + " -> {1}H2"), _answer(".".join(["C"] * 5000)),
    ]


def _smiles() -> list[str]:
    ring_bomb = "C" + "".join(f"%{n}" for n in range(10, 100)) + "C" * 10 + "".join(f"%{n}" for n in range(10, 100))
    return [
        _answer("C1CC"), _answer("C1CC("), _answer("c1ccccc1[Xx]"), _answer("c1cccc1"), _answer("[C@@H](F)(Cl)Br"),
        _answer("C" + "1" * 2000), _answer("C1" * 2000), _answer("C" + "%99" * 2000), _answer(ring_bomb),
        _answer("c1" * 500 + "c1" * 500), _answer("[" + "C" * 1000 + "]"), _answer("[999999999999C]"),
        _answer("[C+99999999999]"), _answer("[CH99999]"), _answer("[13C-9]"), _answer("C" * 10_000),
        _answer("C.C.C." * 2000), _answer("*" * 1000), _answer("[*]" * 1000), _answer("C=" * 2000 + "C"),
        _answer("C#C#C#C"), _answer("[Uuo]"), _answer("[Xe+]"), _answer("[H]"), _answer("[HH]"), _answer("CC>>CC"),
        _answer("CC(=O)O" + " " * 5000 + "C"), _answer("C\\C=C/C" * 500), _answer("C$C"), _answer("[2H][2H]" * 500),
    ]


def _text() -> list[str]:
    return [
        "", " ", "\n" * 1000, "\t \r\n", "<answer>abc</answer>", "<answer></answer>", "<answer> </answer>",
        "<answer>", "</answer>", "<answer><answer></answer></answer>", "</answer><answer>",
        "<answer>\ud800\udfff</answer>", "<answer>\ud800</answer>", "<answer>C\udfffC</answer>", "\ud800" * 1000,
        "<answer>\x00\x01\x7f</answer>", "<answer>C\x00C</answer>", "<answer>🧪⚗️💥</answer>", "<answer>C🧪O</answer>",
        "<answer>\u202eCCO\u202c</answer>", "<answer>\ufeffCCO</answer>", "<answer>Ｃ Ｏ</answer>", "<answer>H₂O</answer>",
        "<ANSWER>1</ANSWER>", "<answer >1</answer >", "<answer>1</answer" , "answer: 1",
        "<answer>C" * 50 + "</answer>" * 50, "<answer>1</answer>" * 5000, "<answer>" * 5000 + "1" + "</answer>" * 5000,
        "</think>" * 2000 + "<answer>1</answer>", "</think>" * 20_000, "<think>" * 5000 + "<answer>1</answer>",
        "<think>" + "x" * 1000 + "</think><answer>C1CC</answer>", "<think><answer>1</answer></think>",
        "x" * LONG, "<answer>" + "C" * LONG + "</answer>", "<answer>" + "1" * LONG + "</answer>",
        "<answer>" + "a" * LONG + "</answer>", "<answer>" + " " * LONG + "</answer>", "<answer>" + "🧪" * (LONG // 4) + "</answer>",
        "<answer>" + "{1}H2O + " * (LONG // 10) + "</answer>", "<answer>" + "[1, " * (LONG // 4) + "</answer>",
        "<answer>" + json.dumps({"smiles": "C" * LONG}) + "</answer>",
        "<answer>%s</answer>", "<answer>{0}</answer>", "<answer>${x}</answer>", "<answer>\\</answer>", "<answer>'</answer>",
        "<answer>" + "\\u0000" * 100 + "</answer>", "<answer>" + "\\ud800" * 100 + "</answer>",
    ]


def hostile_completions() -> list[str]:
    """Completions a policy can write that no checker may raise on (a fresh list each call)."""
    out = list(dict.fromkeys(_text() + _numbers() + _structures() + _smiles()))
    assert sum(map(len, out)) <= MAX_TOTAL_CHARS, "the hostile corpus outgrew its bound"
    return out


__all__ = ["DEEP", "HUGE_DIGITS", "LONG", "MAX_TOTAL_CHARS", "hostile_completions"]
