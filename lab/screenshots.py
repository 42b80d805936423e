"""Screenshots of the web app as a person sees it: one match of each game, a person against the heuristic,
at comparable moments, in headless Chromium at a laptop's 1366 x 768.

    city-envs serve --port 8010 &                                   # the version to picture
    python -m lab.screenshots --url http://127.0.0.1:8010 --out /work/shots/after48
    python -m lab.screenshots --url http://127.0.0.1:8011 --out /work/shots/before48 --games citadels

It drives a running server through its pages only (any version of the app: the new-game form, the choice
buttons, the preview's "Play it" where there is one), so two versions served side by side play the same
match: the same seed, and the person's choice drawn by its action id from the same generator (a bot that
plays alike then meets the same positions). Per game it saves `<game>-1-start.png` (the first decision),
`<game>-2-mid.png` (the first decision from step `--mid-step` on with at least `--mid-choices` choices, else
the one with the most), `<game>-3-end.png` (the page at the end), `<game>-4-end-scores.png` (the same
scrolled to the final scores) and `<game>-5-final-table.png` (the final table opened); where the board has
layer switches (Blue Moon City's dragons), `<game>-2b-layer.png` with the first one switched on. At the
first decision it prints how wide the board is shown and its smallest label in CSS pixels.
Needs Chromium and chromedriver (`/usr/bin/chromium`, `/usr/bin/chromedriver`) and selenium.
"""

from __future__ import annotations

import argparse
import random
import shutil
import time
from pathlib import Path

GAMES = ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl")
# options that keep a match within minutes where the game has them (as the browser tests play)
SHORT = {"citadels": {"max_rounds": "3"}, "blue_moon_city": {"max_rounds": "3"}, "urban_sprawl": {"max_turns": "6"}}
STATE = """
const actions = document.querySelector('#actions');
return {
  over: Boolean(document.getElementById('game-over')),
  error: (document.getElementById('error-message') || document.getElementById('bot-error') || {}).textContent || '',
  confirm: Boolean(document.getElementById('confirm')),
  bots: document.body.dataset.botsToMove === '1',
  step: actions && actions.querySelector('input[name=step]') ? actions.querySelector('input[name=step]').value : null,
  choices: actions ? [...actions.querySelectorAll('button[name=action]')].map((b) => Number(b.value)) : [],
};
"""


def browser(width: int, height: int):
    """Headless Chromium whose page is `width` x `height` CSS pixels."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    flags = ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}")
    for argument in flags:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    # the window's size is the page's in headless mode; make sure of it
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    return driver


def wait_for_decision(driver, old_step: str | None, timeout: float) -> dict:
    """Until the page asks the person something new (a step other than `old_step`), shows a preview to
    confirm, ends, or shows an error; returns what `STATE` reads of it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            state = driver.execute_script(STATE)
        except Exception:  # the page is being replaced
            state = None
        if state:
            if state["over"] or state["error"] or state["confirm"]:
                return state
            if state["choices"] and not state["bots"] and state["step"] != old_step:
                return state
        time.sleep(0.1)
    raise TimeoutError(f"no new decision within {timeout:.0f} s at {driver.current_url}")


LABELS = """
const board = document.querySelector('#board svg');
if (!board) return null;
const shown = board.getBoundingClientRect().width;
const sizes = [...board.querySelectorAll('text')].map((text) => parseFloat(text.getAttribute('font-size')));
return [shown, Math.min(...sizes) * shown / board.viewBox.baseVal.width];
"""


def shoot(driver, path: Path, scroll_to: str | None = None) -> None:
    """The screen as it shows now, from the page's top (or scrolled to the element `scroll_to` names)."""
    if scroll_to:
        driver.execute_script(f"const e = document.querySelector('{scroll_to}'); if (e) e.scrollIntoView();")
    else:
        driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.2)
    driver.save_screenshot(str(path))
    print(path)


def play(driver, url: str, game: str, out: Path, args: argparse.Namespace) -> None:
    """One match of `game`, the person (seat 0) against the heuristic, with its screenshots in `out`."""
    driver.get(f"{url}/new?game={game}&players=2")
    driver.execute_script(
        "document.getElementById('seed').value = arguments[0];"
        "for (const [key, value] of Object.entries(arguments[1])) {"
        "  const field = document.getElementById('opt_' + key); if (field) field.value = value; }",
        str(args.seed),
        SHORT.get(game, {}) if args.short else {},
    )
    driver.find_element("id", "start").click()
    pick = random.Random(args.seed)
    state = wait_for_decision(driver, None, args.timeout)
    decisions, best, layer_shot = 0, -1, False
    while not state["over"]:
        if state["error"]:
            raise RuntimeError(f"{game}: the page shows an error: {state['error']}")
        if state["confirm"]:  # a decision's last part, previewed: play it
            driver.execute_script("document.getElementById('confirm').click()")
            state = wait_for_decision(driver, state["step"], args.timeout)
            continue
        if decisions == 0:
            shoot(driver, out / f"{game}-1-start.png")
            measured = driver.execute_script(LABELS)
            if measured:
                print(f"{game}: the board shown {measured[0]:.0f} px wide, its smallest label {measured[1]:.1f} px")
        step, count = int(state["step"]), len(state["choices"])
        if best < args.mid_choices and step >= args.mid_step and count > best:
            shoot(driver, out / f"{game}-2-mid.png")
            best = count
        switches = driver.find_elements("css selector", "#board .layer-switch")
        if switches and not layer_shot:
            switches[0].click()
            shoot(driver, out / f"{game}-2b-layer.png")
            switches[0].click()
            layer_shot = True
        # a lone choice draws nothing: a page that plays it for the person then meets the same match
        action = state["choices"][0] if count == 1 else pick.choice(sorted(state["choices"]))
        driver.execute_script(
            'document.querySelector(`#actions button[name=action][value="${arguments[0]}"]`).click()', action
        )
        decisions += 1
        state = wait_for_decision(driver, state["step"], args.timeout)
    shoot(driver, out / f"{game}-3-end.png")
    shoot(driver, out / f"{game}-4-end-scores.png", scroll_to="#result")
    opened = driver.execute_script(
        "const table = document.getElementById('breakdown'); if (!table) return false;"
        "table.closest('details').open = true; return true;"
    )
    if opened:
        shoot(driver, out / f"{game}-5-final-table.png", scroll_to="#breakdown")
    print(f"{game}: {decisions} decisions of the person")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="Run from a checkout: python -m lab.screenshots"
    )
    parser.add_argument("--url", required=True, help="the running server, e.g. http://127.0.0.1:8010")
    parser.add_argument("--out", type=Path, required=True, help="the folder the PNGs go to (made if missing)")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--seed", type=int, default=7, help="the deal, and the person's choices")
    parser.add_argument("--mid-step", type=int, default=20, help="the mid-game shot's earliest step (default 20)")
    parser.add_argument("--mid-choices", type=int, default=20, help="the choices the mid-game shot looks for")
    parser.add_argument("--full", dest="short", action="store_false", help="play whole games (default: short options)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the person's next decision")
    parser.add_argument("--size", default="1366x768", help="the page's width x height in CSS pixels")
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    driver = browser(width, height)
    try:
        for game in args.games:
            play(driver, args.url.rstrip("/"), game, args.out, args)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
