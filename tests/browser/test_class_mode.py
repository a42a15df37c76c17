"""Class mode in real browsers: a teacher and three students, each in their own browser
context, on one `streamlit run` server with its class database; once on SQLite and once on
PostgreSQL. The teacher opens a class; the students join by the link (one on a phone) and by
typing the code (after a wrong code); they follow the teacher to Step by step, through
presenter mode's steps, get the teacher's predict-first question, answer it, and see the
reveal; then the app server restarts, and the room, the answers and the followers are back."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

import attn_core as ac
from attn_core import walkthrough as wt
from classroom import codes, no_room
from tests.support.browser.a11y import axe_violations, report
from tests.support.browser.checks import Watch, exceptions, link_problems, screenshot
from tests.support.browser.server import StreamlitServer
from tests.support.browser.session import offline_context
from tests.support.browser.teaching import (
    MAIN,
    PROJECTOR,
    alerts,
    answers,
    choose,
    click,
    eventually,
    main_button,
    progress_lines,
    switch_on,
)
from tests.support.browser.waits import fill_text, go_to, open_app, text_inputs, widget_label
from tests.support.class_protocol import asked_now
from ui.class_mode import words as class_words

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
FOLLOW_S = 2.0  # issue #26: followers show the teacher's change within 2 s
FOLLOW_SLACK_S = 6.0  # what this test allows on the shared two-core test machine (the bench times the target)
SENTENCE = "The cat sat on the mat."


@dataclass
class Tab:
    name: str
    page: object
    watch: Watch
    context: object

    def text(self) -> str:
        """The main area's text, every run of white space one space (a phone wraps the title)."""
        return " ".join(self.page.locator(MAIN).inner_text().split())

    def banner(self) -> str:
        found = self.page.locator(".st-key-class_banner")
        return found.inner_text().strip() if found.count() else ""


@pytest.fixture
def class_server(db_url) -> Iterator[StreamlitServer]:
    server = StreamlitServer(db_url=db_url).start()
    try:
        yield server
    finally:
        server.stop()


def tab(browser, server: StreamlitServer, name: str, path: str = "", viewport: dict | None = None) -> Tab:
    watch = Watch()
    context = offline_context(browser, watch)
    page = context.new_page()
    if viewport:
        page.set_viewport_size(viewport)
    watch.attach(page)
    open_app(page, server.url, path)
    return Tab(name, page, watch, context)


def wait_shows(t: Tab, check, what: str, timeout_s: float = 30.0) -> float:
    """Seconds until ``check(t)`` holds."""
    t0 = time.monotonic()
    try:
        eventually(t.page, lambda: check(t), f"{t.name} to show {what}", timeout_ms=int(timeout_s * 1000))
    except AssertionError as err:
        shot, _ = screenshot(t.page, f"class-failed-{t.name.replace(' ', '-')}")
        states = t.page.evaluate("() => (window.__stStates || [])")
        (shot.parent / f"{shot.stem}-runs.txt").write_text("\n".join(states))
        states = states[-14:]
        raise AssertionError(
            f"{err}; {t.page.url} shows ({shot}): {t.text()[:600]}; runs: {states}; "
            f"console: {t.watch.console_errors[-5:]} {t.watch.page_errors[-5:]}"
        ) from None
    return time.monotonic() - t0


def the_answer(qi: int = 2) -> tuple[int, str, float]:
    """Step by step's default question, from attn_core: the key query ``qi`` weights most."""
    tokens = ac.tokenize(SENTENCE)
    row = wt.lesson(wt.seeded_source(tuple(tokens), 16, 4, seed=0, positional=True), scale=True).steps.weights[qi]
    k = int(np.argmax(row))
    return k, f"{k}: {tokens[k]}", float(row.max())


def following_now(t: Tab) -> str:
    """The Class page's count of students following now, as shown."""
    found = re.search(r"Students following now: (\d+)", t.text())
    return found.group(1) if found else ""


def poll_bars(t: Tab) -> list[tuple[str, int]]:
    """The poll's bars as (option, the picks it states); the right one, once marked, as "✓ option"."""
    out = []
    for text in t.page.locator(f"{MAIN} [data-testid='stProgress']").all_inner_texts():
        label, count = re.fullmatch(r"(.*): (\d+) picks?", text.strip()).groups()
        marked = re.fullmatch(r"✓ (.*) \(the answer\)", label)
        out.append((f"✓ {marked.group(1)}" if marked else label, int(count)))
    return out


def answered(t: Tab) -> list[tuple[int, int]]:
    """Every "N of M answered" on the page, as (N, M)."""
    return [(int(n), int(m)) for n, m in re.findall(r"(\d+) of (\d+) answered", t.text())]


def revealed_answer(t: Tab) -> tuple[str, float] | None:
    """The first "The answer: …" line as (the option it names, the value it states)."""
    found = [re.match(r"The answer: (.+?), with .+ = (\d\.\d{3})\.", a) for a in answers(t.page)]
    return (found[0].group(1), float(found[0].group(2))) if found and found[0] else None


# Over ``ms`` milliseconds: how many runs the page started (the app's script state turning to
# "running") and whether Streamlit's status widget ("Running", with a Stop button) ever showed.
RUNNING_SIGN_JS = """
(ms) => new Promise((done) => {
  const app = document.querySelector("[data-testid='stApp']");
  let runs = 0, seen = false, state = app.getAttribute('data-test-script-state');
  const look = () => {
    const now = app.getAttribute('data-test-script-state');
    if (now !== state && now === 'running') runs += 1;
    state = now;
    if (document.querySelector("[data-testid='stStatusWidget']")) seen = true;
  };
  const watch = new MutationObserver(look);
  watch.observe(document.body, { attributes: true, childList: true, subtree: true });
  setTimeout(() => { watch.disconnect(); done({ runs, seen }); }, ms);
})
"""


def running_sign(t: Tab, seconds: float) -> dict:
    """RUNNING_SIGN_JS on ``t`` for ``seconds``: {"runs": ..., "seen": ...}."""
    return t.page.evaluate(RUNNING_SIGN_JS, round(seconds * 1000))


def plain(markdown: str) -> str:
    """A sentence of class mode's words as the page shows it (bold marks dropped, escapes undone)."""
    return re.sub(r"\\(.)", r"\1", markdown.replace("**", ""))


def verdict(question, pick: str) -> str:
    """What a student who picked ``pick`` (and left the estimate at its 0.5) is told after the reveal."""
    return class_words.verdict(question, (question.options.index(pick), 0.5))


def start_class(teacher: Tab) -> tuple[str, str, str]:
    """Start a class on the Class page; returns (code, join link, teacher key)."""
    click(
        teacher.page,
        main_button(teacher.page, "Start a class"),
        lambda: teacher.page.locator(".st-key-class_shown_code").count() > 0,
    )
    code = teacher.page.locator(".st-key-class_shown_code p").inner_text().strip()
    link = teacher.page.locator(".st-key-class_join_link").inner_text().strip()
    teacher.page.get_by_text("Your teacher key (open it where the class cannot see it)").click()
    key = teacher.page.locator(".st-key-class_teacher_key").inner_text().strip()
    return code, link, key


def test_a_class_of_three_follows_answers_and_survives_a_restart(browser, class_server, db_url) -> None:
    server = class_server
    kind = "postgres" if db_url.startswith("postgresql") else "sqlite"
    teacher = tab(browser, server, "teacher", "class")
    code, link, key = start_class(teacher)
    assert codes.is_code(code) and link == f"{server.url}/?room={code}"
    assert len(codes.normalize(key)) * codes.BITS_PER_CHAR >= 128
    qr = teacher.page.locator(f"{MAIN} img[alt='QR code of the join link {link}']")
    shown = qr.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
    assert qr.count() == 1 and shown[0] == shown[1] and 240 <= shown[0] <= 260, shown  # unscaled: sharp modules
    screenshot(teacher.page, f"class-{kind}-teacher-start")
    assert not (found := axe_violations(teacher.page)), report(found)

    # Three students: two by the link (one on a phone), one types a wrong code, then the right one.
    students = [
        tab(browser, server, "student 1", f"?room={code}"),
        tab(browser, server, "student 2", f"?room={code}", PHONE),
    ]
    typist = tab(browser, server, "student 3", "class")
    box = next(b for b in text_inputs(typist.page).all() if widget_label(b) == "Class code")
    label_px = box.locator("[data-testid='stWidgetLabel'] p").first.evaluate(
        "p => parseFloat(getComputedStyle(p).fontSize)"
    )
    assert label_px < 20, f"the join box's label is drawn at {label_px} px, like the class code itself"
    fill_text(typist.page, box, "ZZZZZZ")
    wait_shows(typist, lambda t: no_room("ZZZZZZ") in alerts(t.page), "the wrong code's message")
    assert "Following" not in typist.banner() and typist.page.get_by_role("button", name="Start a class").count() == 1
    fill_text(typist.page, box, code.lower())
    students.append(typist)
    for s in students:
        wait_shows(s, lambda t: t.banner().startswith(plain(class_words.following(code))), "the banner")
        assert s.page.locator(".st-key-class_banner").bounding_box()["y"] < 200  # at the top of the page itself
    wait_shows(teacher, lambda t: following_now(t) == "3", "3 students following")

    # The teacher moves: Step by step, Predict first, presenter mode, then Next to step 8.
    go_to(teacher.page, "Step by step")
    for s in students:
        wait_shows(
            s, lambda t: "/step-by-step" in t.page.url and "Self-attention, step by step" in t.text(), "step by step"
        )
    switch_on(teacher.page, "sbs_predict", lambda: "Predict first" in teacher.text())
    teacher.page.set_viewport_size(PROJECTOR)
    switch_on(teacher.page, "present", lambda: bool(progress_lines(teacher.page)))
    follow_s = []
    for step in range(2, 9):
        click(
            teacher.page,
            main_button(teacher.page, "Next →"),
            lambda n=step: progress_lines(teacher.page)[0].startswith(f"Step {n} of"),
        )
        line = progress_lines(teacher.page)[0]
        follow_s.append(
            max(wait_shows(s, lambda t, line=line: progress_lines(t.page) == [line], line) for s in students)
        )
    assert max(follow_s) < FOLLOW_SLACK_S, follow_s
    # A follower's tick that finds no move holds on the server a moment (ui.class_mode.follow.HOLD_S),
    # but ends before the browser shows its "Running" sign: no Stop button flashes on a follower's
    # screen while the teacher talks.
    sign = running_sign(students[1], 3.5)
    assert sign["runs"] >= 2 and not sign["seen"], sign
    for s in students:
        assert s.page.locator(MAIN).get_by_role("button", name="Next →").count() == 0  # students cannot move the room
        assert "present" not in s.page.url
    screenshot(students[1].page, f"class-{kind}-student-phone-step8")

    # The poll: the teacher's question on every student's screen, with the same options.
    _, answer_option, weight = the_answer()
    question = asked_now(db_url, code)
    prompt = question.prompt
    assert prompt in teacher.text() and answered(teacher) == [(0, 3)]
    picks = ["0: The", "1: cat", answer_option]
    for s, pick in zip(students, picks, strict=True):
        wait_shows(s, lambda t: prompt in t.text(), "the question")
        choose(s.page, "Your pick", pick)
        click(s.page, main_button(s.page, "Send"), lambda s=s: "Sent: " in s.text())
        assert not answers(s.page)
    screenshot(students[1].page, f"class-{kind}-student-phone-sent")
    wait_shows(teacher, lambda t: answered(t) == [(3, 3)], "3 of 3 answered")
    expected_bars = sorted((p, 1) for p in picks)
    wait_shows(teacher, lambda t: sorted(poll_bars(t)) == expected_bars, "the three picks")  # none marked
    screenshot(teacher.page, f"class-{kind}-teacher-poll")
    assert not (found := axe_violations(teacher.page)), report(found)
    # The key is in no address and, while presenting, nowhere on the teacher's page.
    assert key not in teacher.page.content() and key not in teacher.page.url
    assert all(key not in s.page.content() and key not in s.page.url for s in students)

    click(teacher.page, main_button(teacher.page, "Reveal answers"), lambda: bool(answers(teacher.page)))
    assert revealed_answer(teacher) == (answer_option, round(weight, 3)), answers(teacher.page)
    marked = (f"✓ {answer_option}", 1)
    assert marked in poll_bars(teacher)
    for s, pick in zip(students, picks, strict=True):
        revealed = lambda t: revealed_answer(t) == revealed_answer(teacher) and marked in poll_bars(t)  # noqa: E731
        wait_shows(s, revealed, "the reveal", FOLLOW_SLACK_S * 3)
        assert plain(verdict(question, pick)) in answers(s.page)[0]
    screenshot(students[0].page, f"class-{kind}-student-reveal")
    screenshot(students[1].page, f"class-{kind}-student-phone-reveal")
    for s in students[:2]:  # a desktop and a phone
        assert not (found := axe_violations(s.page)), report(found)
    for t in (teacher, *students):
        assert not link_problems(t.page, t.watch), (t.name, link_problems(t.page, t.watch))

    # The app server restarts: the students' tabs reconnect and follow again, with their answers.
    server.restart()
    for s, pick in zip(students, picks, strict=True):
        wait_shows(
            s, lambda t: t.banner().startswith(plain(class_words.following(code))), "the banner after the restart", 90
        )
        wait_shows(s, lambda t: revealed_answer(t) == (answer_option, round(weight, 3)), "the answer after restart", 60)
        assert plain(verdict(question, pick)) in answers(s.page)[0]
    # The teacher's tab is a new session, no longer the teacher's: it opens the Class page and
    # takes the class back with the key.
    teacher.page.set_viewport_size({"width": 1280, "height": 800})
    open_app(teacher.page, server.url, "class")
    teacher.page.get_by_text("Take a class back (after a reload, or on another device)").click()
    teacher.page.get_by_label("Code of your class").fill(code)
    teacher.page.get_by_label("Teacher key").fill(key)
    click(
        teacher.page,
        main_button(teacher.page, "Take the class back"),
        lambda: teacher.page.locator(".st-key-class_shown_code").count() > 0,
    )
    wait_shows(teacher, lambda t: following_now(t) == "3", "3 students following after the restart")
    for s in students:
        wait_shows(s, lambda t: "/class" in t.page.url, "the teacher's Class page")
    go_to(teacher.page, "Step by step")
    switch_on(teacher.page, "sbs_predict", lambda: "Predict first" in teacher.text())
    wait_shows(teacher, revealed, "the revealed answer")
    assert answered(teacher) == [(3, 3)]
    for t in (teacher, *students):
        assert not exceptions(t.page), (t.name, exceptions(t.page))
        t.context.close()
