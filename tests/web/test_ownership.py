"""A game belongs to the browser that started it: another browser (a second client with its own
cookies) cannot list, open, act in, let the bots move in, draw, save, replay or delete it, and sees
nothing of its seats; the owner's watch link shows the public table only."""

from __future__ import annotations

import html

import pytest

from city_envs.web.app import CSRF_COOKIE, CSRF_FIELD, OWNER_COOKIE, create_app

from .conftest import BASE_URL, form_client
from .test_adversarial import call, new_game, refused
from .test_app import choices, step_of

NOT_HERE = "no such game in this browser"


@pytest.fixture()
def app(replay_folder):
    return create_app([replay_folder])


@pytest.fixture()
def owner(app):
    with form_client(app, raise_server_exceptions=False) as client:
        client.get("/")
        yield client


@pytest.fixture()
def stranger(app):
    """Another browser on the same server: its own form and owner tokens."""
    with form_client(app, raise_server_exceptions=False) as client:
        client.get("/")
        yield client


def session_for(client, url: str):
    return client.app.state.site.store.get(url.rsplit("/", 1)[1], client.cookies[OWNER_COOKIE])


def finished_game(client) -> str:
    """A bot-only match played to its end through the owner's pages."""
    url = new_game(client, "citadels", ("random", "random"), opt_max_rounds="2")
    for _ in range(200):
        if 'id="game-over"' in client.get(url).text:
            return url
        assert call(client.post, f"{url}/advance").status_code == 200
    raise AssertionError("the match did not end")


def test_another_browser_cannot_list_open_act_in_or_delete_a_game(owner, stranger):
    url = new_game(owner, "citadels", ("person", "random"))
    page = owner.get(url).text
    private = session_for(owner, url).game.render_private(0)
    assert private and html.escape(private, quote=False) in page  # the owner sees its seat
    step, legal = step_of(page), choices(page)
    assert url in owner.get("/").text

    assert url not in stranger.get("/").text
    for response in (
        call(stranger.get, url),
        call(stranger.get, f"{url}?seat=0"),
        call(stranger.get, f"{url}/board.png"),
        call(stranger.get, f"{url}/save.json"),
        call(stranger.get, "/replay", params={"src": f"live/{url.rsplit('/', 1)[1]}"}),
        call(stranger.post, f"{url}/act", data={"seat": "0", "action": str(legal[0]), "step": str(step)}),
        call(stranger.post, f"{url}/advance"),
        call(stranger.post, f"{url}/delete"),
    ):
        refused(response, 404, NOT_HERE)
        assert 'id="private"' not in response.text and 'id="actions"' not in response.text
        assert private not in html.unescape(response.text)
    assert step_of(owner.get(url).text) == step  # nothing moved
    assert url in owner.get("/").text  # nor was it deleted


def test_another_browser_cannot_save_or_replay_a_finished_game(owner, stranger):
    url = finished_game(owner)
    game_id = url.rsplit("/", 1)[1]
    assert owner.get(f"{url}/save.json").status_code == 200
    assert owner.get("/replay", params={"src": f"live/{game_id}"}).status_code == 200
    refused(call(stranger.get, f"{url}/save.json"), 404, NOT_HERE)
    refused(call(stranger.get, "/replay", params={"src": f"live/{game_id}"}), 404, NOT_HERE)
    refused(call(stranger.get, "/replay/board.png", params={"src": f"live/{game_id}"}), 404, NOT_HERE)


@pytest.mark.parametrize("cookie", [None, "x" * 43, "short", "../" * 20, "%C3%BC" * 10])
def test_a_browser_without_the_owner_token_owns_nothing(app, owner, cookie):
    """No cookie, a well-formed guess, or a malformed one: the game is not there."""
    from starlette.testclient import TestClient

    url = new_game(owner, "citadels", ("person", "random"))
    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as raw:
        headers = {"cookie": f"{OWNER_COOKIE}={cookie}"} if cookie is not None else {}
        refused(call(raw.get, url, headers=headers), 404, NOT_HERE)
        assert url not in raw.get("/", headers=headers).text


def test_the_owner_token_is_random_per_browser_strict_and_hidden_from_scripts(app):
    from starlette.testclient import TestClient

    tokens = []
    for _ in range(2):
        with TestClient(app, base_url=BASE_URL) as raw:
            cookie = next(c for c in raw.get("/").headers.get_list("set-cookie") if c.startswith(OWNER_COOKIE))
            assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
            tokens.append(raw.cookies[OWNER_COOKIE])
            assert raw.cookies[OWNER_COOKIE] not in raw.get("/new").text  # never written into a page
    assert tokens[0] != tokens[1] and len(tokens[0]) >= 43


def test_a_new_browser_plays_at_once_even_without_an_owner_cookie(app):
    """The single-user flow: the home page, the new-game form, the game. A browser that kept only its
    form token (cookies from before owners) is given its owner token with the game it starts."""
    from starlette.testclient import TestClient

    with TestClient(app, base_url=BASE_URL) as raw:
        raw.get("/")
        token = raw.cookies[CSRF_COOKIE]
        raw.cookies.delete(OWNER_COOKIE)
        created = raw.post(
            "/games",
            data={"game": "citadels", "players": "2", "seat0": "person", "seat1": "random", CSRF_FIELD: token},
            follow_redirects=False,
        )
        assert created.status_code == 303
        assert any(c.startswith(OWNER_COOKIE) for c in created.headers.get_list("set-cookie"))
        page = raw.get(created.headers["location"])
        assert page.status_code == 200 and 'id="actions"' in page.text and 'id="private"' in page.text
        assert created.headers["location"] in raw.get("/").text


def test_the_owner_deletes_a_game(owner):
    url = new_game(owner, "citadels", ("person", "random"))
    deleted = call(owner.post, f"{url}/delete", follow_redirects=False)
    assert deleted.status_code == 303 and deleted.headers["location"] == "/"
    refused(call(owner.get, url), 404, NOT_HERE)
    assert url not in owner.get("/").text


def test_a_watch_link_shows_the_public_table_and_nothing_to_press(owner, stranger):
    url = new_game(owner, "citadels", ("person", "random"), seed="987654321")
    call(owner.post, f"{url}/act", data={"seat": "0", "action": str(choices(owner.get(url).text)[0]), "step": "0"})
    session = session_for(owner, url)
    watch = f"/watch/{session.watch_id}"
    assert f'href="{watch}"' in owner.get(url).text
    page = call(stranger.get, watch).text
    private = [session.game.render_private(seat) for seat in range(2)]
    assert all(text and text not in html.unescape(page) for text in private)
    for mark in ('id="private"', 'id="actions"', 'id="advance"', 'id="delete"', 'id="save-link"', "/act", url):
        assert mark not in page, mark
    assert 'id="watching"' in page and 'http-equiv="refresh"' in page
    assert all(event.public in html.unescape(page) for event in session.log)
    assert "seat 0 (person)" in html.unescape(page) and "(you)" not in page  # the owner is not the watcher
    # the seed would give every deal away: named to nobody before the end
    assert "987654321" not in owner.get(url).text and "987654321" not in page
    assert call(stranger.get, f"{watch}/board.png").content[:4] == b"\x89PNG"
    refused(call(stranger.get, "/watch/" + "x" * 22), 404, "no game to watch")
    refused(call(stranger.post, f"{watch}/act", data={"seat": "0", "action": "0", "step": "1"}), (404, 405))


def test_the_store_hands_a_match_only_to_its_owner_and_watching_keeps_none_alive():
    from pathlib import Path

    from city_envs.web.seats import parse_seat
    from city_envs.web.sessions import PlaySession, SessionStore

    now = [0.0]
    store = SessionStore(capacity=10, ttl=60.0, clock=lambda: now[0])
    specs = [parse_seat(kind, "citadels", 2, Path) for kind in ("person", "random")]
    mine, other = "a" * 43, "b" * 43
    match = PlaySession("citadels", 2, specs, 1, {}, mine)
    store.add(match)
    for owner in (other, "", mine[:-1]):
        with pytest.raises(KeyError):
            store.get(match.id, owner)
        with pytest.raises(KeyError):
            store.remove(match.id, owner)
        assert store.listing(owner) == []
    assert store.listing(mine) == [match] and store.watched(match.watch_id) is match
    with pytest.raises(KeyError):
        store.watched(match.id)  # the game's own id is no watch link
    now[0] = 50.0
    store.watched(match.watch_id)
    now[0] = 61.0  # idle for its owner since 0: watching kept nothing alive
    assert store.listing(mine) == []
