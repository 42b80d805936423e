"""The web app in a real browser: headless Chromium plays a whole game of every title through the page
against bots (every other choice by clicking the SVG board where it can, at least once per game), checks
that every label a choice names is drawn on the board, and steps an arena replay back and forth. Run with
`pytest -m browser tests/web`.

`CITY_ENVS_SCREENSHOTS=DIR` also saves a screenshot of each game in DIR (the README's come from here).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

# options that keep a game short where the game has them; the person plays seat 0 against a heuristic
SHORT_GAMES = {
    "citadels": {"max_rounds": "3"},
    "metropolys": {},
    "blue_moon_city": {"max_rounds": "3"},
    "big_city": {},
    "urban_sprawl": {"max_turns": "6"},
}
MAX_PAGES = 800


def gone(element) -> bool:
    """Whether `element` left the page. Chromium may answer for a node of an unloading page that it "does not
    belong to the document" rather than that it is stale (seen with pages holding a large inline SVG)."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise
    return False


def wait_for_page(driver, old_root=None):
    """Until a new page has loaded and it asks something of the person, shows the end, or an error."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 120)
    if old_root is not None:
        wait.until(lambda _: gone(old_root))
    wait.until(
        lambda d: any(d.find_elements(By.ID, name) for name in ("actions", "game-over", "error-message", "bot-error"))
    )


def click_and_wait(driver, element) -> None:
    from selenium.webdriver.common.by import By

    root = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait_for_page(driver, root)


def no_error(driver) -> None:
    from selenium.webdriver.common.by import By

    for name in ("error-message", "bot-error"):
        found = driver.find_elements(By.ID, name)
        assert not found, f"{name}: {found[0].text}"


def check_board(driver) -> None:
    """The board is an inline SVG document laid out at a readable width (it shrinks only to fit the column)."""
    from selenium.webdriver.common.by import By

    board = driver.find_element(By.CSS_SELECTOR, "#board svg")
    assert driver.execute_script("return arguments[0].getBoundingClientRect().width", board) > 600


def board_texts(driver) -> set[str]:
    """Every text drawn on the SVG board, as the page holds it."""
    import xml.etree.ElementTree as ET

    from selenium.webdriver.common.by import By

    from ..test_svg_boards import NS

    root = ET.fromstring(driver.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML"))
    return {" ".join("".join(element.itertext()).split()) for element in root.iter(f"{NS}text")}


def shown_layer_place(driver, switch):
    """After a click on the board's layer `switch`: one of its layer's places, now shown in place of the
    places of no layer (which are hidden until the switch is clicked again)."""
    from selenium.webdriver.common.by import By

    layer = switch.get_attribute("data-layer")
    places = driver.find_elements(By.CSS_SELECTOR, "#board .choice[data-layer]")
    others = driver.find_elements(By.CSS_SELECTOR, "#board .choice:not([data-layer])")
    mine = [place for place in places if place.get_attribute("data-layer") == layer]
    assert mine and not any(place.is_displayed() for place in places)
    switch.click()
    assert all(place.is_displayed() for place in mine) and not any(place.is_displayed() for place in others)
    assert switch.get_attribute("aria-pressed") == "true"
    return mine[0]


@pytest.mark.parametrize("game", list(SHORT_GAMES))
def test_a_person_plays_a_whole_game_against_a_bot(live_server, browser, game):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{live_server}/new?game={game}&players=2")
    assert Select(browser.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == game
    for key, value in SHORT_GAMES[game].items():
        field = browser.find_element(By.ID, f"opt_{key}")
        field.clear()
        field.send_keys(value)
    assert browser.find_element(By.ID, "seat0").get_attribute("value") == "person"
    seed = browser.find_element(By.ID, "seed")
    seed.clear()
    seed.send_keys("7")
    click_and_wait(browser, browser.find_element(By.ID, "start"))

    from ..test_svg_boards import LABELS

    chooser = random.Random(0)
    decisions = board_clicks = layer_clicks = 0
    shot = False
    screenshots = os.environ.get("CITY_ENVS_SCREENSHOTS")
    for _ in range(MAX_PAGES):
        no_error(browser)
        if browser.find_elements(By.ID, "game-over"):
            break
        buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action") if b.is_displayed()]
        assert buttons or browser.find_elements(By.CSS_SELECTOR, "#actions details"), "the turn shows no choices"
        assert browser.find_element(By.ID, "private").text.strip()
        areas = browser.find_elements(By.CSS_SELECTOR, "#board .choice:not([data-layer])")  # the ones shown
        switches = browser.find_elements(By.CSS_SELECTOR, "#board .layer-switch")
        if decisions in (8, 15):
            check_board(browser)
        drawn = board_texts(browser)  # every label a choice names is on the board, as the page shows it
        for button in buttons:
            assert set(LABELS[game](button.text)) <= drawn, (button.text, set(LABELS[game](button.text)) - drawn)
        # the README's picture: the first page from decision 4 on with places to click, else decision 10
        if screenshots and not shot and decisions >= 4 and (areas or decisions == 10):
            Path(screenshots).mkdir(parents=True, exist_ok=True)
            size = browser.get_window_size()
            browser.set_window_size(1366, 768)  # what a person sees at 100% zoom on a common laptop screen
            browser.save_screenshot(str(Path(screenshots) / f"web_{game}.png"))
            browser.set_window_size(size["width"], size["height"])
            shot = True
        if switches and not layer_clicks:  # a move of another layer (a dragon's): its switch, then its place
            click_and_wait(browser, shown_layer_place(browser, switches[0]))
            layer_clicks += 1
        elif areas and decisions % 2 == 0:  # every other turn, choose by clicking the board
            area = chooser.choice(areas)
            assert area.find_element(By.TAG_NAME, "title").get_attribute("textContent") in {
                button.text for button in buttons
            }
            click_and_wait(browser, area)
            board_clicks += 1
        elif buttons:
            click_and_wait(browser, chooser.choice(buttons))
        else:  # every list folded: open one
            folded = browser.find_element(By.CSS_SELECTOR, "#actions details summary")
            folded.click()
            click_and_wait(browser, chooser.choice(folded.find_elements(By.XPATH, "../div/button")))
        decisions += 1
    else:
        pytest.fail(f"{game} did not end within {MAX_PAGES} pages")
    assert decisions > 3
    assert board_clicks > 0, "no choice was made on the board"
    assert layer_clicks or game != "blue_moon_city", "no dragon was moved on the board"
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert any("heuristic" in item.text for item in log), "the bot's moves are missing from the log"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#scores tr")) == 2

    # the finished game opens in the replay viewer, and steps forward
    browser.get(browser.find_element(By.ID, "replay-link").get_attribute("href"))
    assert browser.find_element(By.ID, "step").text == "0"
    browser.find_element(By.ID, "forward").click()
    assert browser.find_element(By.ID, "step").text == "1"


@pytest.fixture(scope="module")
def arena_run(served_folder: Path) -> Path:
    from city_envs.evaluation import evaluate, write_reports

    out = served_folder / "run"
    write_reports(evaluate("citadels", 2, ["heuristic", "random"], games=2, seed=3), out)
    return out


def test_an_arena_match_steps_back_and_forth(live_server, browser, arena_run):
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{live_server}/")
    links = browser.find_elements(By.CSS_SELECTOR, "a.match-link")
    assert [link.text for link in links] == ["0", "1"]
    links[1].click()

    def reaches_step(expected: int) -> bool:
        """Whether the page shows `expected` within 30 s: a jump reloads the page, and an element read
        while the old page unloads goes stale (CI caught it on a busy machine), so it is read again."""
        wait = WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))
        try:
            return wait.until(lambda b: int(b.find_element(By.ID, "step").text) == expected)
        except TimeoutException:
            return False

    assert reaches_step(0)
    for expected in (1, 2, 3):
        browser.find_element(By.ID, "forward").click()
        assert reaches_step(expected)
    browser.find_element(By.ID, "back").click()
    assert reaches_step(2)
    jump = browser.find_element(By.ID, "jump")
    jump.clear()
    jump.send_keys("40\n")
    assert reaches_step(40)
    assert "step=40" in browser.current_url
    check_board(browser)
    browser.find_element(By.ID, "view-1").click()
    WebDriverWait(browser, 30).until(lambda b: "view=1" in b.current_url)
    assert reaches_step(40)
    assert len(browser.find_elements(By.CSS_SELECTOR, "pre.private")) == 1
    browser.find_element(By.ID, "view-full").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "pre.private")) == 2
    log = browser.find_element(By.ID, "log")
    assert 0 < browser.execute_script("return arguments[0].scrollTop", log)  # decision 40 is mid-log, in view
    browser.find_element(By.ID, "last").click()
    assert browser.find_elements(By.ID, "game-over")
    # at the end the log shows the last decisions, not the first
    log = browser.find_element(By.ID, "log")
    bottom = browser.execute_script("return arguments[0].scrollHeight - arguments[0].clientHeight", log)
    assert bottom > 0 and browser.execute_script("return arguments[0].scrollTop", log) >= bottom - 1
    if os.environ.get("CITY_ENVS_SCREENSHOTS"):
        browser.get(f"{live_server}/replay?src=0/run&match=1&step=60&view=full")
        browser.save_screenshot(str(Path(os.environ["CITY_ENVS_SCREENSHOTS"]) / "web_replay.png"))


def test_another_browser_session_neither_sees_nor_acts_in_a_game(live_server, browser):
    """The first visit starts a game and plays it; the same game in a browser without this one's cookies
    is a 404 with nothing of the seat, its watch link shows the public table with nothing to press."""
    from selenium.webdriver.common.by import By

    browser.get(f"{live_server}/new?game=citadels&players=2")
    click_and_wait(browser, browser.find_element(By.ID, "start"))
    assert browser.find_elements(By.ID, "actions") and browser.find_element(By.ID, "private").text.strip()
    game_url = browser.current_url.split("?")[0]
    watch_url = browser.find_element(By.ID, "watch-link").get_attribute("href")
    cookies = browser.get_cookies()
    try:
        browser.delete_all_cookies()  # now another browser session
        browser.get(game_url)
        assert "no such game in this browser" in browser.find_element(By.ID, "error-message").text
        assert not browser.find_elements(By.ID, "actions") and not browser.find_elements(By.ID, "private")
        browser.get(f"{live_server}/")
        assert not browser.find_elements(By.CSS_SELECTOR, f'a[href="{game_url.removeprefix(live_server)}"]')
        browser.get(watch_url)
        assert browser.find_elements(By.ID, "watching") and browser.find_elements(By.ID, "board")
        for name in ("actions", "private", "advance", "delete", "save-link"):
            assert not browser.find_elements(By.ID, name), name
    finally:
        browser.delete_all_cookies()
        browser.get(f"{live_server}/")
        for cookie in cookies:
            browser.add_cookie(cookie)
    browser.get(game_url)
    assert browser.find_elements(By.ID, "actions")


def in_view(driver, element) -> bool:
    """Whether `element` shows on the screen: its box meets the window's, and it is drawn."""
    return driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return r.width > 0 && r.height > 0"
        " && r.top < window.innerHeight && r.bottom > 0 && r.left < window.innerWidth;",
        element,
    )


@pytest.mark.parametrize("game", list(SHORT_GAMES))
def test_at_1366_by_768_the_log_the_last_move_and_the_players_stay_in_view(live_server, browser, game):
    """A laptop screen: bot moves arrive in the open page one by one (no reload), the log's newest move
    and the players' panels are on screen however far the page is scrolled, no list holds more than
    the limit of buttons, and another browser session can neither open nor act in the game."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from city_envs.web.app import MAX_LIST

    size = browser.get_window_size()
    browser.set_window_size(1366, 768)
    try:
        browser.get(f"{live_server}/new?game={game}&players=2")
        seed = browser.find_element(By.ID, "seed")
        seed.clear()
        seed.send_keys("7")
        click_and_wait(browser, browser.find_element(By.ID, "start"))
        chooser = random.Random(1)
        bot_moves_seen = False
        for _ in range(12):
            no_error(browser)
            if browser.find_elements(By.ID, "game-over"):
                break
            for group in browser.find_elements(By.CSS_SELECTOR, "#actions .group"):
                assert len(group.find_elements(By.CSS_SELECTOR, "button.action")) <= MAX_LIST
            buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action") if b.is_displayed()]
            root = browser.find_element(By.TAG_NAME, "html")
            chooser.choice(buttons).click()
            WebDriverWait(browser, 60).until(lambda _, old=root: gone(old))
            if browser.execute_script("return document.body.dataset.botsToMove") == "1":
                browser.execute_script("window.sameDocument = true;")
                before = browser.execute_script("return document.body.dataset.step")
                wait_for_page(browser)
                # the bots moved in this very document: nothing reloaded it
                assert browser.execute_script("return window.sameDocument === true")
                bot_moves_seen |= browser.execute_script("return document.body.dataset.step") != before
            else:
                wait_for_page(browser)
            for scroll in (0, 3000):
                browser.execute_script(f"window.scrollTo(0, {scroll})")
                assert in_view(browser, browser.find_element(By.CSS_SELECTOR, "#log li")), scroll
                assert in_view(browser, browser.find_element(By.ID, "players")), scroll
            browser.execute_script("window.scrollTo(0, 0)")
        assert bot_moves_seen, "no bot move came into the open page"
        newest = browser.find_element(By.CSS_SELECTOR, "#log li.newest")
        assert in_view(browser, newest) and newest.text
        if browser.find_elements(By.CSS_SELECTOR, "#board .last-move"):
            assert in_view(browser, browser.find_element(By.ID, "last-move-key"))
        game_url = browser.current_url.split("?")[0]
        cookies = browser.get_cookies()
        try:
            browser.delete_all_cookies()  # another browser session
            browser.get(game_url)
            assert "no such game in this browser" in browser.find_element(By.ID, "error-message").text
            status = browser.execute_script(
                "return fetch(arguments[0] + '/act', {method: 'POST', body: new URLSearchParams("
                "{seat: '0', action: '0', step: '0', csrf_token: 'x'})}).then(r => r.status)",
                game_url,
            )
            assert status in (403, 404)
        finally:
            browser.delete_all_cookies()
            browser.get(f"{live_server}/")
            for cookie in cookies:
                browser.add_cookie(cookie)
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_a_watchers_page_takes_in_the_moves_without_reloading(live_server, browser):
    """The watch link's page follows the match in place: a move made meanwhile arrives in the open page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(f"{live_server}/new?game=citadels&players=2")
    Select(browser.find_element(By.ID, "seat0")).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.ID, "watch-link"))
    game_url = browser.current_url.split("?")[0]
    watch_url = browser.find_element(By.ID, "watch-link").get_attribute("href")
    token = browser.find_element(By.CSS_SELECTOR, "#delete input[name=csrf_token]").get_attribute("value")
    browser.get(watch_url)  # the owner's page is left: nothing moves the bots but the request below
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.ID, "watching"))
    browser.execute_script("window.sameDocument = true;")
    before = browser.execute_script("return document.body.dataset.step")
    status = browser.execute_script(
        "return fetch(arguments[0] + '/advance?moves=1', {method: 'POST', body: new URLSearchParams("
        "{csrf_token: arguments[1]})}).then(r => r.status)",
        game_url,
        token,
    )
    assert status == 200
    WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.body.dataset.step") != before)
    assert browser.execute_script("return window.sameDocument === true")
    assert browser.find_elements(By.ID, "watching") and not browser.find_elements(By.ID, "actions")


def test_the_screenshot_driver_pictures_a_short_match(live_server, tmp_path, capsys):
    """`python -m lab.screenshots` (issue 48's before/after pictures) plays Citadels' short match to its end
    on a running app and saves the start, the end, the final scores and the final table at 1366 x 768."""
    from lab import screenshots

    screenshots.main(["--url", live_server, "--out", str(tmp_path), "--games", "citadels", "--timeout", "120"])
    for shot in ("1-start", "3-end", "4-end-scores", "5-final-table"):
        with open(tmp_path / f"citadels-{shot}.png", "rb") as picture:
            head = picture.read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n", shot
        assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (1366, 768), shot
    printed = capsys.readouterr().out
    assert "citadels: the board shown" in printed and "decisions of the person" in printed
