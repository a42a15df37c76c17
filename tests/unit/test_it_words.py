"""ui.it_words: the sentence about "it" states the numbers it is given, and its claim about the
congested sentence follows which token got the most weight."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.support.sentence_numbers import numbers
from ui.it_words import it_numbers

weight = st.floats(0, 1, allow_nan=False)
top = st.sampled_from(["animal", "street", "it", "[SEP]", "*tired*", "<b>x</b>"])


@given(weight, weight, weight, weight, top)
def test_the_sentence_states_each_weight_and_the_top_token(t_animal, t_street, c_animal, c_street, c_top):
    rows = {
        "tired": {"animal": t_animal, "street": t_street, "top": "animal"},
        "congested": {"animal": c_animal, "street": c_street, "top": c_top},
    }
    text = it_numbers(rows)
    assert numbers(text) == [round(v, 2) for v in (t_animal, t_street, c_animal, c_street)]
    settles = "does not settle" in text
    assert settles == (c_top == "animal")
    if c_top != "animal":
        assert "<b>" not in text and "*tired*" not in text  # a token is shown literally, escaped
