"""ui.state: what a URL value stands for (validated, clamped, the default when unreadable),
how a value is written back (left out at its default), and PageState in a real script run."""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from ui.state import PageState, Param, clamp_index, first_value

INT = Param("d_k", 4, "int", lo=1, hi=64)
DELTA = Param("delta", 3.0, "float", lo=-10.0, hi=20.0, step=0.5)  # softmax lab's "Raise it by"
THRESHOLD = Param("threshold", 0.05, "float", lo=0.01, hi=1.0, step=0.01)  # real model's slider
PLAIN_FLOAT = Param("x", 1.0, "float", lo=0.0, hi=2.0)
MULTIPLIER = Param("m", 100.0, "choice", choices=(0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0))
D_K = Param("d_k", 4, "choice", choices=(1, 2, 4, 8, 16, 32))
VIEW = Param("view", "head", "choice", choices=("head", "model", "neuron"))
REGION = Param("region", "All", "choice", choices=("All", "A→A", "B→B", "A→B", "B→A"))
CAUSAL = Param("causal", False, "bool")
SCALE = Param("scale", True, "bool")
TEXT = Param("text", "The cat sat on the mat.", "text", max_chars=10)
OPTIONAL = Param("b", "fruit flies", "text", allow_empty=True)
HEADS = Param("heads", list(range(12)), "ints", lo=0, hi=11)
FOCUS = Param("focus", None, "index")
QUERY = Param("query", 1, "index")
EVERY = (INT, DELTA, THRESHOLD, PLAIN_FLOAT, MULTIPLIER, D_K, VIEW, REGION, CAUSAL, SCALE, TEXT, OPTIONAL, HEADS)
EVERY += (FOCUS, QUERY)


# --------------------------------------------------------------------------- parse, by kind


@pytest.mark.parametrize(
    ("raw", "value"),
    [("8", 8), (" 8 ", 8), ("64", 64), ("999", 64), ("0", 1), ("-5", 1), ("99999999999999999999999", 64)],
)
def test_an_int_is_read_and_clamped_into_its_range(raw, value) -> None:
    assert INT.parse(raw) == value
    assert type(INT.parse(raw)) is int


@pytest.mark.parametrize(
    ("raw", "value"),
    [("-2.5", -2.5), ("2.3", 2.5), ("2.2", 2.0), ("3", 3.0), ("-10", -10.0), ("25", 20.0), ("-11.3", -10.0)],
)
def test_a_float_with_a_step_goes_to_the_nearest_step_then_into_range(raw, value) -> None:
    assert DELTA.parse(raw) == value
    assert type(DELTA.parse(raw)) is float


def test_a_step_counts_from_the_low_end() -> None:
    """0.01, 0.02, ... 1.0: 0.2 is a step, 0.234 goes to 0.23, 0 to the low end."""
    assert THRESHOLD.parse("0.2") == pytest.approx(0.2)
    assert THRESHOLD.parse("0.234") == pytest.approx(0.23)
    assert THRESHOLD.parse("0") == pytest.approx(0.01)
    assert THRESHOLD.parse("7") == 1.0
    assert THRESHOLD.encode(THRESHOLD.parse("0.2")) == "0.2"  # no 0.20000000000000004 in the URL


def test_a_float_without_a_step_is_only_clamped() -> None:
    assert PLAIN_FLOAT.parse("0.123456") == 0.123456
    assert PLAIN_FLOAT.parse("-1") == 0.0
    assert PLAIN_FLOAT.parse("5e2") == 2.0


@pytest.mark.parametrize(("raw", "value"), [("model", "model"), ("neuron", "neuron"), (" head ", "head")])
def test_a_named_choice_must_be_one_of_the_choices(raw, value) -> None:
    assert VIEW.parse(raw) == value


@pytest.mark.parametrize("raw", ["Model", "heads", "1", "nan", ""])
def test_an_unknown_named_choice_gives_the_default(raw) -> None:
    assert VIEW.parse(raw) == "head"


def test_a_choice_may_be_any_text() -> None:
    assert REGION.parse("A→B") == "A→B"
    assert REGION.parse("A->B") == "All"


@pytest.mark.parametrize(
    ("raw", "value"),
    [("50", 50.0), ("50.0", 50.0), ("0.5", 0.5), ("42", 50.0), ("0", 0.1), ("1e9", 100.0), ("-3", 0.1)],
)
def test_a_number_between_the_choices_goes_to_the_nearest_choice(raw, value) -> None:
    assert MULTIPLIER.parse(raw) == value


def test_a_numeric_choice_keeps_the_choices_own_type() -> None:
    assert D_K.parse("8") == 8 and type(D_K.parse("8")) is int
    assert D_K.parse("7") == 8 and D_K.parse("5") == 4 and D_K.parse("1000") == 32
    assert type(MULTIPLIER.parse("50")) is float


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", "yes", "on", " On "])
def test_bool_true_spellings(raw) -> None:
    assert CAUSAL.parse(raw) is True


@pytest.mark.parametrize("raw", ["0", "false", "False", "no", "off", "OFF"])
def test_bool_false_spellings(raw) -> None:
    assert SCALE.parse(raw) is False


@pytest.mark.parametrize("raw", ["", "2", "maybe", "y", "nan"])
def test_an_unreadable_bool_gives_the_default(raw) -> None:
    assert CAUSAL.parse(raw) is False
    assert SCALE.parse(raw) is True


def test_text_is_kept_as_typed_and_cut_to_max_chars() -> None:
    assert TEXT.parse("a red fox") == "a red fox"
    assert TEXT.parse("  spaced  ") == "  spaced  "  # text is not stripped: the student's own spacing
    assert TEXT.parse("0123456789abc") == "0123456789"
    assert TEXT.parse("<b>é</b>") == "<b>é</b>"  # data, not markup: escaping is the page's job


def test_empty_text_is_the_default_unless_empty_is_allowed() -> None:
    assert TEXT.parse("") == TEXT.default
    assert TEXT.parse("   ") == TEXT.default
    assert OPTIONAL.parse("") == ""  # an empty sentence B is a choice: one sentence only
    assert OPTIONAL.parse("It was tired.") == "It was tired."


def test_a_followed_address_keeps_an_empty_text() -> None:
    """A teacher's address (class mode) is followed exactly: an empty box stays empty."""
    assert TEXT.parse("", keep_empty=True) == "" and TEXT.parse("   ", keep_empty=True) == "   "
    assert TEXT.parse(None, keep_empty=True) == TEXT.default  # no text in the address: the default
    assert TEXT.parse("0123456789abc", keep_empty=True) == "0123456789"
    assert INT.parse("", keep_empty=True) == INT.default  # only text keeps an empty value


@pytest.mark.parametrize(
    ("raw", "value"),
    [("0,5,11", [0, 5, 11]), ("11,0,5,5", [0, 5, 11]), (" 1 , 2 ", [1, 2]), ("0,99,-3", [0, 11]), ("3,", [3])],
)
def test_ints_are_sorted_deduplicated_and_clamped(raw, value) -> None:
    assert HEADS.parse(raw) == value


def test_an_empty_ints_list_is_a_value() -> None:
    assert HEADS.parse("") == []  # no head chosen (the page says "pick at least one head")


@pytest.mark.parametrize(("raw", "value"), [("3", 3), ("0", 0), ("-4", 0), ("none", None), ("None", None)])
def test_an_index_is_non_negative_or_none(raw, value) -> None:
    assert QUERY.parse(raw) == value


@pytest.mark.parametrize("raw", ["all", "ALL", "", "none"])
def test_an_index_of_all_or_none_is_none(raw) -> None:
    assert FOCUS.parse(raw) is None
    assert QUERY.parse(raw) is None


# --------------------------------------------------------------------------- bad input


BAD = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e400", "garbage", "3x", "0x10", "1,2", "9" * 5000]


@pytest.mark.parametrize("raw", BAD)
@pytest.mark.parametrize(
    "param", [INT, DELTA, THRESHOLD, PLAIN_FLOAT, MULTIPLIER, D_K, QUERY], ids=lambda p: f"{p.name}-{p.kind}"
)
def test_unreadable_numbers_give_the_default(param, raw) -> None:
    assert param.parse(raw) == param.default


@pytest.mark.parametrize("raw", ["nan", "inf", "a,b", "1,,x", "1.5"])
def test_an_unreadable_ints_list_gives_the_default(raw) -> None:
    assert HEADS.parse(raw) == list(range(12))


@pytest.mark.parametrize("param", EVERY, ids=lambda p: f"{p.name}-{p.kind}")
def test_an_absent_parameter_gives_the_default(param) -> None:
    assert param.parse(None) == param.default


def test_a_parsed_float_is_always_finite_and_in_range() -> None:
    for raw in ["nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "-0", "19.75", "20.24"]:
        value = DELTA.parse(raw)
        assert math.isfinite(value) and DELTA.lo <= value <= DELTA.hi, (raw, value)


# --------------------------------------------------------------------------- encode


@pytest.mark.parametrize("param", EVERY, ids=lambda p: f"{p.name}-{p.kind}")
def test_a_default_is_left_out_of_the_url(param) -> None:
    assert param.encode(param.default) is None


@pytest.mark.parametrize(
    ("param", "value", "written"),
    [
        (INT, 8, "8"),
        (DELTA, -2.5, "-2.5"),
        (DELTA, 20.0, "20"),
        (MULTIPLIER, 50.0, "50"),
        (D_K, 8, "8"),
        (VIEW, "neuron", "neuron"),
        (CAUSAL, True, "1"),
        (SCALE, False, "0"),
        (TEXT, "a red fox", "a red fox"),
        (OPTIONAL, "", ""),
        (HEADS, [0, 5, 11], "0,5,11"),
        (HEADS, [], ""),
        (FOCUS, 3, "3"),
        (QUERY, None, "none"),
        (QUERY, 0, "0"),
    ],
)
def test_a_value_is_written_short(param, value, written) -> None:
    assert param.encode(value) == written


@pytest.mark.parametrize(
    ("param", "value"),
    [
        (INT, 8),
        (DELTA, -2.5),
        (DELTA, 20.0),
        (THRESHOLD, 0.37),
        (MULTIPLIER, 0.1),
        (MULTIPLIER, 50.0),
        (D_K, 32),
        (VIEW, "model"),
        (REGION, "B→A"),
        (CAUSAL, True),
        (SCALE, False),
        (TEXT, "a red fox"),
        (OPTIONAL, ""),
        (HEADS, [0, 5, 11]),
        (HEADS, []),
        (FOCUS, 3),
        (QUERY, None),
    ],
)
def test_what_is_written_reads_back_as_the_same_value(param, value) -> None:
    expected = pytest.approx(value) if isinstance(value, float) else value
    assert param.parse(param.encode(value)) == expected


# --------------------------------------------------------------------------- helpers


def test_first_value_of_a_repeated_parameter() -> None:
    assert first_value(["3", "5"]) == "3"
    assert first_value([]) is None


@pytest.mark.parametrize(
    ("value", "n", "default", "clamped"),
    [
        (None, 5, 0, 0),
        (None, 5, None, None),
        (None, 5, 3, 3),
        (7, 5, 0, 4),
        (-2, 5, 0, 0),
        (2, 5, 0, 2),
        (3, 0, 1, 1),
        (3, 0, None, None),
    ],
)
def test_clamp_index_keeps_a_token_inside_the_sentence(value, n, default, clamped) -> None:
    assert clamp_index(value, n, default) == clamped


def test_page_state_names_its_widget_keys_after_the_page() -> None:
    state = PageState("lab", (INT, CAUSAL))
    assert state.key("d_k") == "lab_d_k"
    assert state.param("causal") is CAUSAL


# --------------------------------------------------------------------------- PageState in a run


def _script() -> None:
    """A page with a slider, a toggle and an index: widgets start from the URL, then sync."""
    import streamlit as st

    from ui.state import PageState, Param

    state = PageState(
        "t",
        (
            Param("d_k", 4, "int", lo=1, hi=64),
            Param("causal", False, "bool"),
            Param("focus", None, "index"),
        ),
    )
    state.start()
    st.slider("d_k", 1, 64, key=state.key("d_k"))
    st.toggle("Causal", key=state.key("causal"))
    focus = state.value("focus")
    state.sync({"focus": None if focus is None else min(focus, 2)})  # the page clamps it to its 3 tokens


def _run(**query: str) -> AppTest:
    at = AppTest.from_function(_script)
    at.query_params.update(query)
    return at.run(timeout=30)


def test_widgets_start_from_the_url_and_the_url_keeps_only_what_differs() -> None:
    at = _run(d_k="999", causal="yes", focus="9", present="1")
    assert not at.exception
    assert at.slider[0].value == 64 and at.toggle[0].value is True
    # Clamped values are written back; a parameter of another owner (presenter mode) stays.
    assert dict(at.query_params) == {"d_k": "64", "causal": "1", "focus": "2", "present": "1"}


def test_a_widget_set_back_to_its_default_leaves_the_url() -> None:
    at = _run(d_k="8", causal="1")
    at.slider[0].set_value(4).run()
    at.toggle[0].set_value(False).run()
    assert at.slider[0].value == 4
    assert dict(at.query_params) == {}


def test_the_url_is_read_once_then_the_widgets_rule() -> None:
    at = _run(d_k="8")
    at.slider[0].set_value(16).run()
    assert at.slider[0].value == 16  # not reset to the URL's 8 on the rerun
    assert dict(at.query_params) == {"d_k": "16"}
