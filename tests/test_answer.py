from rlvr.answer import extract_answer, extract_json_answer


def test_last_answer_block_wins_and_think_is_ignored():
    text = "<think>maybe <answer>1</answer></think> ok <answer>2</answer> then <answer> 3 </answer>"
    assert extract_answer(text).text == "3"
    assert extract_answer("<think><answer>1</answer></think>no answer").reason == "no_answer"


def test_unclosed_think_gives_no_answer():
    assert extract_answer("<think>still thinking <answer>5</answer>").reason == "no_answer"


def test_chat_message_lists_are_accepted():
    assert extract_answer([{"role": "assistant", "content": "<answer>x</answer>"}]).text == "x"


def test_length_cap():
    assert extract_answer("a" * 200_000 + "<answer>1</answer>").reason == "too_long"


def test_json_cascade():
    assert extract_json_answer('<answer>{"a": 1}</answer>') == ({"a": 1}, "tag_json")
    assert extract_json_answer("<answer>```json\n{\"a\": 1}\n```</answer>") == ({"a": 1}, "tag_json")
    assert extract_json_answer("<answer>three</answer>") == ("three", "tag_text")
    assert extract_json_answer('so {"a": 2} and {"a": 3}') == ({"a": 3}, "json")
    assert extract_json_answer("nothing") == (None, "no_answer")
    assert extract_json_answer(None) == (None, "not_text")


def test_adversarial_braces_are_bounded():
    import time

    t = time.perf_counter()
    extract_json_answer("{" * 90_000)
    assert time.perf_counter() - t < 1.0
