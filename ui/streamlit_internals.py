"""Everything the app still takes from Streamlit beyond its public API, in one place.

Each workaround below says why no public way does the job, and has one fast test in
tests/unit/test_streamlit_internals.py. ``check_version`` runs when this module is imported:
on a Streamlit outside the range these were written and tested for, the app stops with a
clear message instead of failing silently (a wrong layout, a switch that does nothing).

Upgrading Streamlit: widen ``TESTED`` only after `make test` passes on the new release
(docs/architecture.md has the checklist).

Workarounds:

- **The theme on every page** (``remember_theme_on_every_page``). The theme switch is
  Streamlit's own (the app menu's System, Light and Dark; ``client.toolbarMode = "viewer"``),
  and Streamlit keeps the choice in the browser's localStorage, under a key made of the
  address the tab was *opened* at (``stActiveTheme-<path>-v2``). So a theme picked on Step by
  step lasts while the student moves between pages, but a reload after moving (or a page
  opened in a new tab) reads another page's key and falls back to the computer's setting.
  Streamlit has no public call that sets or reads the viewer's theme in the browser (Python
  reads it, ``st.context.theme.type``, but cannot set it), so a small script copies the choice
  to every page's key of this app. If Streamlit renames the key, the copy does nothing and
  the theme still works page by page as Streamlit does it; the test reads the installed
  front end for the key's form.

CSS: the app's stylesheets (assets/*.css) select the app's own keyed containers
(``.st-key-…``: the page, app.py; the stage and the Back/Next row, ui/present.py; a chart by
its key), Plotly's own classes, and plain HTML (``main``, ``a``, ``p``). The ``data-testid``
rules that remain reach what no keyed container of the app holds: Streamlit's own chrome and
widgets, and the columns Streamlit builds inside the presenter stage. A Streamlit upgrade that
renames one of these leaves that one rule doing nothing (a looser layout, a fainter focus
ring); the browser sweeps (tests/browser/test_pages.py, test_presenter.py) find it.

- assets/layout.css and assets/present.css: ``stMainBlockContainer`` (the room above a page's
  title, the screen's height in presenter mode), ``stHeader`` (transparent in presenter mode).
- assets/present.css, inside ``.st-key-present_stage``: ``stLayoutWrapper``,
  ``stHorizontalBlock``, ``stColumn``, ``stVerticalBlock``, ``stElementContainer`` (each chart
  fills its share of the stage's height, through st.columns' own blocks), and
  ``stMetricValue`` and ``stCaptionContainer`` (a metric's number and a caption, whose text
  sits in no paragraph of its own, sized for the room).
- assets/a11y.css: ``stCaptionContainer`` (caption contrast), ``stSlider`` /
  ``stSliderThumbValue`` (the dark theme's slider value), ``stBaseButton-elementToolbar``,
  ``stTextInputRootElement``, ``stTextAreaRootElement``, ``stNumberInputContainer``,
  ``stSelectbox``, ``stMultiSelect``, ``stCheckbox``, ``stRadioOption`` (focus rings that
  Streamlit draws too faintly or not at all).
"""

from __future__ import annotations

from importlib import metadata

from ui import scripts

TESTED = ((1, 67), (1, 67))  # the (major, minor) releases these workarounds were tested on, inclusive


def _version(text: str) -> tuple[int, int]:
    major, minor, *_ = (int("".join(ch for ch in part if ch.isdigit()) or 0) for part in text.split("."))
    return major, minor


def check_version(installed: str | None = None) -> None:
    """Raise RuntimeError, naming both, when the installed Streamlit is outside ``TESTED``."""
    installed = installed or metadata.version("streamlit")
    low, high = TESTED
    if not low <= _version(installed) <= high:
        raise RuntimeError(
            f"Streamlit {installed} is installed, but ui/streamlit_internals.py was written and tested for "
            f"{low[0]}.{low[1]} to {high[0]}.{high[1]}. Install a release in that range "
            "(requirements.txt pins one), or check each workaround in that module and widen TESTED."
        )


check_version()


# --------------------------------------------------------------------------- the theme

THEME_KEY_PREFIX = "stActiveTheme-"  # + the address the tab was opened at + THEME_KEY_SUFFIX
THEME_KEY_SUFFIX = "-v2"
_THEME_JS = """
(function ({ pages, prefix, suffix }) {
  if (window.__themeEveryPage) return;
  window.__themeEveryPage = true;
  const entry = performance.getEntriesByType('navigation')[0];
  const opened = new URL(entry ? entry.name : location.href).pathname;
  // The app's own address (its base path): the opened address less the page's own path.
  const page = pages.filter((p) => p && opened.endsWith('/' + p)).sort((a, b) => b.length - a.length)[0] || '';
  const base = opened.slice(0, opened.length - page.length);
  const key = (path) => prefix + path + suffix;
  const copy = () => {
    const chosen = localStorage.getItem(key(opened));
    if (chosen === null) return;
    for (const p of pages) {
      if (localStorage.getItem(key(base + p)) !== chosen) localStorage.setItem(key(base + p), chosen);
    }
  };
  copy();
  // After any click (the menu's choice is saved as it is clicked), and before the tab goes away.
  document.addEventListener('click', () => setTimeout(copy, 0), true);
  window.addEventListener('pagehide', copy);
  document.addEventListener('visibilitychange', copy);
})(DATA);
"""


def remember_theme_on_every_page(url_paths: list[str]) -> None:
    """Copy the theme picked in Streamlit's menu to every page of the app (see the docstring),
    where the caller writes (the sidebar; ui.scripts runs it)."""
    data = {"pages": url_paths, "prefix": THEME_KEY_PREFIX, "suffix": THEME_KEY_SUFFIX}
    scripts.run(_THEME_JS.replace("DATA", scripts.data_json(data)), key="theme_every_page")
