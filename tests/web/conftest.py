"""Fixtures of the web app's tests: the app on a TestClient, and for the `browser` tests the app on a
real local server driven by headless Chromium (Debian's chromium and chromium-driver)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from city_envs.web.app import create_app


@pytest.fixture()
def replay_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


BASE_URL = "http://127.0.0.1:8000"  # the app refuses any other Host than the address it serves


def form_client(app, **kwargs):
    """A TestClient that sends each form as the app's own pages do: with the browser session's form
    token (read from its cookie, which the home page sets)."""
    from starlette.testclient import TestClient

    from city_envs.web.app import CSRF_COOKIE, CSRF_FIELD

    class FormClient(TestClient):
        def post(self, url, *args, data=None, **rest):
            if CSRF_COOKIE not in self.cookies:
                self.get("/")
            data = {CSRF_FIELD: self.cookies[CSRF_COOKIE]} | dict(data or {})
            return super().post(url, *args, data=data, **rest)

    return FormClient(app, base_url=BASE_URL, **kwargs)


@pytest.fixture()
def client(replay_folder: Path):
    with form_client(create_app([replay_folder])) as test_client:
        yield test_client


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def live_server(served_folder: Path):
    """The app on 127.0.0.1 in a thread of this process; yields its base URL."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app([served_folder]), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the web app did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through chromedriver. A missing browser fails the test, never skips it:
    install Debian's `chromium` and `chromium-driver` (CI does)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.fail("the browser tests need chromium and chromedriver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1100"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()
