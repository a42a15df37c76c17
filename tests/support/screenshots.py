"""The README's two screenshots, made from the running app: what a class sees on a 1280×720
projector in presenter mode (Step by step, the attention weights) and on a 390 px phone (Home,
from the top down to its two heads). Writes assets/screen-projector.png and assets/screen-phone.png.

Run it with the project's Python: ``.venv/bin/python tests/support/screenshots.py`` (or ``make
screenshots``). It starts the app on a free port and uses the Chromium of the browser tests
(``CHROMIUM`` to use another one); nothing leaves this machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.browser.screens import PHONE, PROJECTORS, settle  # noqa: E402
from tests.support.browser.server import CHROMIUM, CHROMIUM_ARGS, StreamlitServer  # noqa: E402
from tests.support.browser.waits import RUN_COUNTER_JS, open_app  # noqa: E402

ASSETS = ROOT / "assets"
PROJECTOR_SHOT = ASSETS / "screen-projector.png"
PHONE_SHOT = ASSETS / "screen-phone.png"

# Where Home's last chart (the trained head) ends: the phone shot runs from the top to there.
LAST_CHART_BOTTOM_JS = """
() => {
  const charts = document.querySelectorAll("[data-testid='stMain'] [data-testid='stPlotlyChart']");
  return Math.ceil(charts[charts.length - 1].getBoundingClientRect().bottom + 12);
}
"""


def main() -> None:
    server = StreamlitServer().start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=PROJECTORS[0])
            context.add_init_script(RUN_COUNTER_JS)
            page = context.new_page()
            open_app(page, server.url, "step-by-step?present=1&step=8")
            settle(page)
            page.screenshot(path=PROJECTOR_SHOT)
            # A phone's width; the screen as tall as the page down to the trained head, so one
            # picture shows what a student scrolls through (the layout depends on the width only).
            page.set_viewport_size(PHONE)
            open_app(page, server.url, "")
            settle(page)
            bottom = page.evaluate(LAST_CHART_BOTTOM_JS)
            page.set_viewport_size({"width": PHONE["width"], "height": bottom})
            settle(page)
            page.screenshot(path=PHONE_SHOT)
            browser.close()
    finally:
        server.stop()
    for shot in (PROJECTOR_SHOT, PHONE_SHOT):
        print(f"{shot.relative_to(ROOT)}: {shot.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
