"""Checks shared by the pages' predict-first tests: which questions a run asks and under which
heading, their options, a pick and the reveal, all read from the AppTest element tree."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.support.lab_checks import page_script

HEADINGS = ("Header", "Subheader")


def page(script: str, present: bool = False, **query: str) -> AppTest:
    """Run lessons/<script> once with these URL parameters (and presenter mode)."""
    at = AppTest.from_file(page_script(script), default_timeout=60)
    if present:
        at.session_state["present"] = True
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def elements(at: AppTest) -> list:
    """Every element of the main area, top to bottom."""
    out: list = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children is not None and not hasattr(node, "value"):
            for child in children.values():
                walk(child)
        else:
            out.append(node)

    walk(at.main)
    return out


def asked(at: AppTest) -> dict[str, str]:
    """{question key: the heading it is drawn under} for every question of the run (a question is
    its Reveal button, keyed "<key>_reveal")."""
    found, heading = {}, None
    for el in elements(at):
        progress = type(el).__name__ == "Markdown" and el.value.startswith("## ")  # presenter mode's heading
        if type(el).__name__ in HEADINGS or progress:
            heading = el.value
        key = getattr(el, "key", None) or ""
        if type(el).__name__ == "Button" and key.endswith("_reveal"):
            found[key.removesuffix("_reveal")] = heading
    return found


def options(at: AppTest, key: str) -> list[str]:
    opts = list(at.selectbox(key=f"{key}_pick").options)
    assert len(opts) >= 2 and len(set(opts)) == len(opts), f"{key}: options must be distinct: {opts}"
    return opts


def prompt(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Predict first.**")]


def answers(at: AppTest) -> list[str]:
    """The revealed answers, each with its verdict."""
    return [a.value for a in [*at.success, *at.info] if a.value.startswith("The answer: ")]


def reveal(at: AppTest, key: str, pick: str) -> str:
    """Pick the option labelled ``pick``, press Reveal; returns the answer. The pick must be right:
    a right pick is shown as a success with "Your pick was right."."""
    index = options(at, key).index(pick)
    at.selectbox(key=f"{key}_pick").select_index(index).run()
    before = set(answers(at))
    at.button(key=f"{key}_reveal").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button(key=f"{key}_reveal").disabled, "the Reveal button stays disabled once pressed"
    new = [a for a in answers(at) if a not in before]
    assert len(new) == 1, (pick, answers(at))
    right = [s.value for s in at.success]
    assert new[0] in right and "Your pick was right." in new[0], (pick, new[0])
    return new[0]
