"""The sentences of class mode, against the numbers they state: the Class page's
(lessons/class_room/words.py) and the banner's and poll's on every page (ui.class_mode.words).

Each property recomputes what a sentence claims from its inputs and checks the claim: the
numbers are parsed back out of the sentence, the wording chosen is checked against the
condition it stands for, and text from outside (a prompt, an option, a section's title) is
checked to read literally once rendered as CommonMark (markdown-it), as Streamlit's markdown
would show it.
"""

from __future__ import annotations

import html
import io
import math
import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import segno
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from PIL import Image

from classroom import PollQuestion, Tally
from lessons.class_room import words
from tests.support.hostile_corpus import HOSTILE
from ui.class_mode import words as class_words

_MD = MarkdownIt("commonmark")
# Milliseconds per example, but the machine the tests share can stall any one of them: no deadline.
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Text from outside: any printable characters (the hostile corpus's markup, HTML and LaTeX
# included), without leading or trailing white space, which markdown trims from a paragraph,
# and short enough for an option (classroom.model.MAX_OPTION_TEXT).
_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn", "Zl", "Zp"))
OUTSIDE = (
    st.one_of(
        st.text(_PRINTABLE, min_size=1, max_size=40),
        st.sampled_from([v for v in HOSTILE.values() if v.strip() and "\n" not in v and "\x00" not in v]),
    )
    .map(lambda t: re.sub(r"[\x00-\x1f\x7f]", "", t)[:150].strip())
    .filter(bool)
)
CODES = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=6, max_size=6)


def shown(markdown: str) -> str:
    """What a reader sees of ``markdown``: rendered as CommonMark, tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", _MD.render(markdown))).strip()


@st.composite
def questions(draw) -> PollQuestion:
    n = draw(st.integers(1, 8))
    return PollQuestion(
        key=draw(st.from_regex(r"[a-z_]{1,12}", fullmatch=True)),
        signature=draw(st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
        prompt=draw(OUTSIDE),
        options=tuple(draw(st.lists(OUTSIDE, min_size=n, max_size=n))),
        answer=draw(st.integers(0, n - 1)),
        value=draw(st.one_of(st.none(), st.floats(0.0, 1.0))),
        value_label=draw(OUTSIDE),
        explain=draw(st.one_of(st.just(""), OUTSIDE)),
    )


@st.composite
def tallies(draw, q: PollQuestion) -> Tally:
    counts = tuple(draw(st.lists(st.integers(0, 40), min_size=len(q.options), max_size=len(q.options))))
    answered = sum(counts)
    following = answered + draw(st.integers(0, 40))
    mean = None if not answered or draw(st.booleans()) else draw(st.floats(0.0, 1.0))
    return Tally(counts=counts, answered=answered, following=following, mean_estimate=mean)


@st.composite
def polls(draw) -> tuple[PollQuestion, Tally]:
    q = draw(questions())
    return q, draw(tallies(q))


# --------------------------------------------------------------------------- the Class page


@PROPERTY
@given(st.integers(0, 10**6))
def test_following_now_states_the_count(n):
    assert re.fullmatch(r"Students following now: (\d+)", shown(words.following_now(n))).group(1) == str(n)


@PROPERTY
@given(OUTSIDE, st.one_of(st.just(""), OUTSIDE))
def test_where_the_class_is_names_the_page_and_the_section_literally(title, section):
    expected = f"The class sees: {title}" + (f" · {section}" if section else "")
    assert shown(words.class_sees(title, section)) == expected


@PROPERTY
@given(CODES, st.booleans())
def test_a_students_line_names_the_class_and_whether_they_follow(code, following):
    text = shown(words.in_class(code, following))
    assert f"class {code}" in text
    assert ("exploring alone" in text) is (not following) and ("follows your teacher" in text) is following


URLS = st.builds(
    lambda scheme, host, port, prefix, page, query: f"{scheme}://{host}{port}{prefix}{page}{query}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(["localhost", "class.example", "10.0.0.7", "x.streamlit.app"]),
    st.sampled_from(["", ":8501", ":443"]),
    st.sampled_from(["", "/app", "/a/b"]),
    st.sampled_from(["", "/", "/class", "/class/", "/step-by-step"]),
    st.sampled_from(["", "?room=K7XQ2M", "?present=1&step=2", "#top"]),
)


@PROPERTY
@given(URLS, CODES)
def test_the_join_link_leads_to_the_app_with_the_room_and_nothing_else(url, code):
    base = words.app_url(url)
    link = urlsplit(words.join_link(base, code))
    start = urlsplit(url)
    assert (link.scheme, link.netloc) == (start.scheme, start.netloc)
    assert parse_qs(link.query) == {"room": [code]} and not link.fragment
    assert not link.path.rstrip("/").endswith("/class") and start.path.startswith(link.path.rstrip("/"))
    assert words.app_url(base) == base  # the app's own address, already


@PROPERTY
@given(st.one_of(st.none(), st.sampled_from(["", "   ", "not a url", "/class", "localhost:8501"])))
def test_without_a_browser_address_the_link_uses_the_local_one(url):
    assert words.app_url(url) == words.FALLBACK_URL


@PROPERTY
@given(OUTSIDE)
def test_the_unavailable_message_quotes_its_reason_literally(reason):
    assert reason in shown(words.unavailable(reason))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(URLS, CODES, st.sampled_from([260, 460]))
def test_the_qr_code_encodes_the_join_link(url, code, width_px):
    """The PNG's modules, read back from its pixels, are segno's QR matrix for the link; the
    image is at most the width asked for, a whole number of pixels per module, with a white
    quiet zone."""
    link = words.join_link(words.app_url(url), code)
    png, width = words.qr_png(link, width_px)
    image = Image.open(io.BytesIO(png)).convert("L")
    matrix = np.array(segno.make(link, error="m").matrix, dtype=bool)
    n, border = matrix.shape[0], words.QR_BORDER
    scale = width_px // (n + 2 * border)
    assert image.size == (width, width) == ((n + 2 * border) * scale,) * 2 and width <= width_px
    pixels = np.asarray(image)
    centres = (np.arange(n) + border) * scale + scale // 2
    np.testing.assert_array_equal(pixels[np.ix_(centres, centres)] < 128, matrix)
    assert (pixels[: border * scale] > 128).all()


# --------------------------------------------------------------------------- the banner


@PROPERTY
@given(CODES, st.integers(0, 500))
def test_the_teachers_banner_states_how_many_follow(code, n):
    found = re.fullmatch(r"Teaching class (\w+): (\d+) following now\.", shown(class_words.teaching(code, n)))
    assert found.groups() == (code, str(n))


@PROPERTY
@given(CODES, st.one_of(st.just(""), OUTSIDE))
def test_a_followers_banner_names_the_class_and_the_section_literally(code, section):
    assert shown(class_words.following(code, section)) == f"Following class {code}" + (
        f" · {section}" if section else ""
    )


@PROPERTY
@given(CODES, st.sampled_from([1800.0, 3600.0, 3 * 3600.0, 5400.0]))
def test_a_closed_class_says_how_long_it_was_idle(code, idle_s):
    found = re.fullmatch(
        rf"Class {code} has closed \(([\d.]+) (hours?) without activity, or it was ended\)\.",
        class_words.closed(code, idle_s),
    )
    hours = float(found.group(1))
    assert math.isclose(hours, idle_s / 3600) and (found.group(2) == "hour") is (hours == 1)


# --------------------------------------------------------------------------- the poll


@PROPERTY
@given(polls(), st.booleans())
def test_the_count_states_who_answered_of_who_follows(poll, revealed):
    _, tally = poll
    found = re.fullmatch(
        r"(The class: )?(\d+) of (\d+) answered", shown(class_words.answered(tally, revealed=revealed))
    )
    assert (int(found.group(2)), int(found.group(3))) == (tally.answered, tally.following)
    assert bool(found.group(1)) is revealed


@PROPERTY
@given(polls(), st.booleans())
def test_the_bars_show_each_picked_option_with_its_count_and_length(poll, revealed):
    q, tally = poll
    bars = class_words.bars(q, tally, revealed)
    expected = [n for n, c in enumerate(tally.counts) if c or (revealed and n == q.answer)]
    top = max(max(tally.counts), 1)
    assert len(bars) == len(expected)
    for n, (label, share) in zip(expected, bars, strict=True):
        text = shown(label)
        marked = revealed and n == q.answer
        body = f"✓ {q.options[n]} (the answer)" if marked else q.options[n]
        count = tally.counts[n]
        assert text == f"{body}: {count} {'pick' if count == 1 else 'picks'}"
        assert math.isclose(share, count / top) and 0.0 <= share <= 1.0
    assert not any("(the answer)" in label for label, _ in bars) or revealed


@PROPERTY
@given(polls())
def test_the_mean_estimate_is_the_classs_mean_to_two_places(poll):
    q, tally = poll
    text = class_words.mean_estimate(q, tally)
    if tally.mean_estimate is None or q.value is None:
        assert text == ""
        return
    found = re.fullmatch(r"Mean estimate of (.+): (\d\.\d\d)\.", shown(text))
    assert found.group(1) == q.value_label and float(found.group(2)) == round(float(tally.mean_estimate), 2)


@PROPERTY
@given(questions())
def test_the_answer_names_the_right_option_and_the_value_literally(q):
    text = shown(class_words.answer_line(q))
    value = f", with {q.value_label} = {q.value:.3f}" if q.value is not None else ""
    assert text == f"The answer: {q.options[q.answer]}{value}. {q.explain}".strip()


@PROPERTY
@given(questions(), st.data())
def test_a_students_verdict_matches_their_pick_and_estimate(q, data):
    picked = data.draw(st.integers(0, len(q.options) - 1))
    estimate = data.draw(st.one_of(st.none(), st.floats(0.0, 1.0)))
    text = shown(class_words.verdict(q, (picked, estimate)))
    assert text.startswith("Your pick was right.") is (picked == q.answer)
    if picked != q.answer:
        assert text.startswith(f"You picked {q.options[picked]}.")
    found = re.search(r"Your estimate (\d\.\d\d) was off by (\d\.\d{3})\.$", text)
    assert (found is not None) is (estimate is not None and q.value is not None)
    if found:
        assert float(found.group(1)) == round(float(estimate), 2)
        assert abs(float(found.group(2)) - abs(estimate - q.value)) <= 0.0005 + 1e-12


@PROPERTY
@given(questions(), st.data())
def test_what_a_student_sent_is_what_they_picked(q, data):
    picked = data.draw(st.integers(0, len(q.options) - 1))
    estimate = data.draw(st.one_of(st.none(), st.floats(0.0, 1.0)))
    text = shown(class_words.sent(q, (picked, estimate)))
    assert text.startswith(f"Sent: {q.options[picked]}")
    found = re.search(r", estimate (\d\.\d\d)\. You can change it", text)
    assert (found is not None) is (estimate is not None)
    assert found is None or float(found.group(1)) == round(float(estimate), 2)


@PROPERTY
@given(questions())
def test_the_prompt_quotes_the_question_literally(q):
    assert shown(class_words.prompt(q)) == f"Predict first. {q.prompt}"
