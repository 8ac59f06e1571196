"""A real browser (Debian's Chromium driven by Playwright) draws a digit and drags a slider."""
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

from app_server import serving_app  # noqa: E402

TIMEOUT_MS = 180_000  # a headless software-rendered canvas on a busy 2-core machine is slow


def draw_seven(page, canvas_box: dict) -> None:
    """Mouse strokes of a 7 in the middle of the canvas: a bar, then a diagonal down to the left."""
    centre_x = canvas_box["x"] + canvas_box["width"] / 2
    centre_y = canvas_box["y"] + canvas_box["height"] / 2
    page.mouse.move(centre_x - 80, centre_y - 100)
    page.mouse.down()
    page.mouse.move(centre_x + 80, centre_y - 100, steps=4)
    page.mouse.move(centre_x - 20, centre_y + 110, steps=6)
    page.mouse.up()


def drag_slider(page, slider) -> None:
    """Press on the slider's thumb (at 0, the middle) and drag it most of the way right."""
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.9, y, steps=3)
    page.mouse.up()


def test_draw_a_seven_drag_a_dimension_and_see_the_routing(tmp_path):
    with serving_app() as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(url)
            # The page selects the brush by itself, so drawing works at once.
            page.wait_for_selector('#sketch button[aria-label="Brush"].highlight')
            assert page.locator(".reading .caption").inner_text() == "Draw a digit"

            draw_seven(page, page.locator("#sketch canvas").first.bounding_box())
            page.wait_for_function(
                "() => /^[0-9]$/.test(document.querySelector('.reading .digit')?.textContent)",
                timeout=TIMEOUT_MS)
            assert page.locator(".reading .digit").inner_text() == "7"
            assert "capsule length" in page.locator(".reading .caption").inner_text()
            reconstruction = page.locator("#reconstruction img")
            reconstruction.wait_for()
            page.wait_for_selector("#figure4 img")
            before = reconstruction.get_attribute("src")

            drag_slider(page, page.locator("#dimension-1 input[type=range]"))
            page.wait_for_function(
                "(before) => { const img = document.querySelector('#reconstruction img');"
                " return img && img.getAttribute('src') !== before; }",
                arg=before, timeout=TIMEOUT_MS)
            assert float(page.locator("#dimension-1 input[type=number]").input_value()) > 0.1

            # The routing view: where the votes for the winner come from, one capsule type at a time.
            heatmap = page.locator("#routing-heatmap img")
            heatmap.wait_for()
            assert "Agreement" in page.locator("#routing-agreement").inner_text()
            assert "r = 5" in page.locator("#routing-table").inner_text()
            all_types = heatmap.get_attribute("src")
            type_box = page.locator("#routing-type input[type=number]")
            type_box.fill("7")
            type_box.press("Enter")
            page.wait_for_function(
                "(before) => { const img = document.querySelector('#routing-heatmap img');"
                " return img && img.getAttribute('src') !== before; }",
                arg=all_types, timeout=TIMEOUT_MS)
            assert "capsule type 7 only" in page.locator("#routing-agreement").inner_text()

            screenshot = tmp_path / "playground.png"
            page.screenshot(path=screenshot, full_page=True)
            if os.environ.get("CAPSNET_SCREENSHOT_DIR"):
                target = Path(os.environ["CAPSNET_SCREENSHOT_DIR"])
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy(screenshot, target / screenshot.name)
        finally:
            browser.close()
