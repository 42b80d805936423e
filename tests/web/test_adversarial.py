"""The web app as an attacker and a careless user would use it: every route with malformed, oversized,
wrong-type, illegal, cross-origin and hostile input, hostile files in a served folder, and bots with
large budgets. A test fails on any 500, on any request that outlives its deadline, and on any sign
that code named by a request or a file ran (a marker file written, a module imported, a pickle opened,
an agent created from a spec)."""

from __future__ import annotations

import html
import json
import os
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import pytest

from city_envs import make_game
from city_envs.web import seats
from city_envs.web.app import CSRF_COOKIE, CSRF_FIELD, create_app
from city_envs.web.sessions import SessionStore

from .conftest import BASE_URL, form_client
from .test_app import text_of

DEADLINE = 20.0  # seconds any one request may take here (the machine is shared and slow)
EVIL_MODULE = "city_envs_evil_payload"


@pytest.fixture()
def trap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A marker path that hostile code would write: an importable module that writes it on import,
    and spies on every door to code (the command line's agent parser, pickled zips)."""
    marker = tmp_path / "code-ran"
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / f"{EVIL_MODULE}.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\nclass Anything:\n"
        "    def __init__(self, seed=None, **kw):\n        pass\n    def act(self, info_set):\n        return 0\n"
    )
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.chdir(modules)

    def spy(name: str):
        def called(*args, **kwargs):
            marker.write_text(name)
            raise AssertionError(f"{name} was called")

        return called

    import city_envs.agents.policy_agent as policy_agent
    import city_envs.agents.policy_file as policy_file
    import city_envs.agents.registry as registry
    from city_envs.agents.spec import AgentSpec

    for module, name in ((AgentSpec, "_build_user"), (policy_file, "load_sb3_zip"), (policy_agent, "load_sb3_zip")):
        monkeypatch.setattr(module, name, spy(f"{module.__name__}.{name}"))
    make_agent = registry.make_agent

    def built_in_only(kind, *args, **kwargs):  # the search asks for the game's heuristic by name, nothing else
        if kind != "heuristic":
            spy(f"make_agent({kind!r})")()
        return make_agent(kind, *args, **kwargs)

    monkeypatch.setattr(registry, "make_agent", built_in_only)
    yield marker
    assert not marker.exists(), f"code ran: {marker.read_text()}"
    assert EVIL_MODULE not in sys.modules


@pytest.fixture()
def served(tmp_path: Path) -> Path:
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


@pytest.fixture()
def app(served: Path):
    return create_app([served])


@pytest.fixture()
def raw(app):
    """A client that sends exactly what a test gives it (no form token added), never raising server errors."""
    from starlette.testclient import TestClient

    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture()
def web(app):
    """A client that sends forms as the app's pages do (with the session's token), never raising server errors."""
    with form_client(app, raise_server_exceptions=False) as client:
        yield client


_pool = ThreadPoolExecutor(max_workers=4)


def call(send, *args, **kwargs):
    """`send(*args, **kwargs)` within DEADLINE seconds, and never a 5xx."""
    started = time.monotonic()
    try:
        response = _pool.submit(send, *args, **kwargs).result(timeout=DEADLINE)
    except FutureTimeout:
        pytest.fail(f"{args} took longer than {DEADLINE} s")
    assert response.status_code < 500, (args, kwargs, response.status_code, response.text[:500])
    assert "Traceback" not in response.text
    assert time.monotonic() - started < DEADLINE
    return response


def refused(response, status: int | tuple[int, ...], message: str = "") -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.text[:400])
    assert message in html.unescape(response.text), response.text[:600]


def new_game(web, game: str = "citadels", seats_: tuple[str, ...] = ("person", "random"), **fields: str) -> str:
    data = {"game": game, "players": str(len(seats_)), "seed": "1"} | fields
    data |= {f"seat{i}": kind for i, kind in enumerate(seats_)}
    response = call(web.post, "/games", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return response.headers["location"]


def game_page_state(web, url: str) -> tuple[int, list[int]]:
    import re

    page = web.get(url).text
    return int(re.search(r'name="step" value="(\d+)"', page).group(1)), [
        int(v) for v in re.findall(r'name="action" value="(\d+)"', page)
    ]


# ----- hostile seats: never code --------------------------------------------------------------------
HOSTILE_SEATS = [
    f"{EVIL_MODULE}:Anything",
    f"{EVIL_MODULE}:Anything:x=1",
    "city_envs.agents.policy_agent:PolicyAgent:path=/tmp/x.zip:trust_pickle=true",
    "city_envs.agents.random_agent:RandomAgent",
    "os:system",
    "ppo:trust_pickle:/tmp/model.zip",
    "ppo:/tmp/model.zip:trust_pickle",
    "ppo:0/model.zip",
    "ppo:0/model.zip:trust_pickle",
    "ppo:/etc/passwd",
    "ppo:0/../../../etc/passwd",
    "ppo:0/fifo.safetensors",
    "ppo:0/missing.safetensors",
    "ppo:0/garbage.safetensors",
    "ppo:1/anything.safetensors",
    "ppo:sample:sample",
    "ppo:0/a.safetensors:0/b.safetensors",
    "ismcts:iters=100000000",
    "ismcts:iters=0",
    "ismcts:seconds=1000",
    "ismcts:seconds=nan",
    "ismcts:seconds=-1",
    "ismcts:max_rollout=none",
    "ismcts:max_rollout=100000",
    "ismcts:c=inf",
    "ismcts:bias=-1",
    "ismcts:rollout=evil",
    "ismcts:opponents=evil",
    "ismcts:iters=10:iters=20:unknown=1",
    "ismcts:iters=" + "9" * 5000,
    "heuristic:extra",
    "random:1",
    "x" * 10_000,
    "person\x00",
    "RANDOM",
    "__import__('os').system('id')",
]


def test_no_seat_spec_from_a_form_runs_code_or_builds_anything_but_a_built_in(web, served, trap):
    (served / "model.zip").write_bytes(_pickle_zip(trap))
    os.mkfifo(served / "fifo.safetensors")
    (served / "garbage.safetensors").write_bytes(b"\x00" * 100)
    for spec in HOSTILE_SEATS:
        response = call(web.post, "/games", data={"game": "citadels", "players": "2", "seat0": "person", "seat1": spec})
        refused(response, 400)
    assert 'href="/games/' not in web.get("/").text  # no game was created


def _pickle_zip(marker: Path) -> bytes:
    """An SB3-looking zip whose pickle would write `marker` if anything unpickled it."""
    import io
    import pickle

    class Payload:
        def __reduce__(self):
            return (Path(marker).write_text, ("unpickled",))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":serialized:": "gASV"}}))
        archive.writestr("policy.pth", pickle.dumps(Payload()))
    return buffer.getvalue()


# ----- cross-origin writes, DNS rebinding, form tokens ---------------------------------------------------
def test_writes_need_the_session_token_and_the_same_origin(raw, trap):
    raw.get("/")  # the browser session: its token cookie
    token = raw.cookies[CSRF_COOKIE]
    good = {"game": "citadels", "players": "2", "seat0": "person", "seat1": "random", CSRF_FIELD: token}
    cases = [
        ({}, {k: v for k, v in good.items() if k != CSRF_FIELD}, 403, "form token"),
        ({}, good | {CSRF_FIELD: "x" * 43}, 403, "form token"),
        ({}, good | {CSRF_FIELD: ""}, 403, "form token"),
        ({"origin": "http://evil.example"}, good, 403, "another site"),
        ({"origin": "null"}, good, 403, "another site"),
        ({"origin": "http://127.0.0.1:8001"}, good, 403, "another site"),
        ({"sec-fetch-site": "cross-site"}, good, 403, "another site"),
        ({"sec-fetch-site": "same-site"}, good, 403, "another site"),
    ]
    for headers, data, status, message in cases:
        refused(call(raw.post, "/games", data=data, headers=headers), status, message)
    refused(call(raw.post, "/games", content=json.dumps(good), headers={"content-type": "application/json"}), 415)
    refused(call(raw.post, "/games", content=b"x", headers={"content-type": "multipart/form-data; boundary=x"}), 415)
    raw.cookies.clear()
    refused(call(raw.post, "/games", data=good), 403, "form token")  # a token without its cookie
    assert 'href="/games/' not in raw.get("/").text
    # the same form from the app's own page is accepted
    raw.get("/")
    ok = call(
        raw.post,
        "/games",
        data=good | {CSRF_FIELD: raw.cookies[CSRF_COOKIE]},
        headers={"origin": BASE_URL, "sec-fetch-site": "same-origin"},
        follow_redirects=False,
    )
    assert ok.status_code == 303


def test_the_token_cookie_is_strict_and_hidden_from_scripts(raw):
    cookie = raw.get("/").headers["set-cookie"]
    assert CSRF_COOKIE in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    page = raw.get("/new").text
    assert f'name="{CSRF_FIELD}" value="{raw.cookies[CSRF_COOKIE]}"' in page
    assert raw.get("/").headers["x-frame-options"] == "DENY"


def test_act_and_advance_need_the_token_too(web, raw, trap):
    url = new_game(web, seats_=("random", "person"))
    for route in ("advance", "act"):
        refused(call(raw.post, f"{url}/{route}", data={"seat": "1", "action": "0", "step": "0"}), 403)
        refused(
            call(
                web.post,
                f"{url}/{route}",
                data={"seat": "1", "action": "0", "step": "0"},
                headers={"origin": "http://evil.example"},
            ),
            403,
        )
    assert 'data-step="0"' in web.get(url).text  # nothing moved


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "127.0.0.1.nip.io",
        "localhost.evil.example",
        "",
        "[::2]",
        "127.0.0.2",
        "attacker.test:8000",
        "a b",
        "127.0.0.1@evil.example",
    ],
)
def test_a_request_for_another_host_name_is_refused_on_every_route(raw, host):
    """DNS rebinding: another site's name resolving to this machine gets nothing, not even a page."""
    for method, path in (
        ("GET", "/"),
        ("GET", "/new"),
        ("POST", "/games"),
        ("GET", "/replay?src=0"),
        ("GET", "/static/app.js"),
        ("GET", "/games/x/board.png"),
        ("GET", "/rules/citadels"),
    ):
        response = call(raw.request, method, path, headers={"host": host})
        refused(response, 400, "Invalid host header")


def test_the_bound_address_and_localhost_are_the_names_accepted():
    from city_envs.web.app import allowed_hosts_for

    assert allowed_hosts_for("127.0.0.1") == ["127.0.0.1", "[::1]", "localhost"]
    assert allowed_hosts_for("192.168.1.5") == ["192.168.1.5"]
    wildcard = allowed_hosts_for("0.0.0.0")
    assert "localhost" in wildcard and "evil.example" not in wildcard


# ----- malformed, wrong-type and oversized fields ------------------------------------------------------
BAD_NUMBERS = [
    "",
    " ",
    "x",
    "1.5",
    "1e3",
    "²",
    "٣",
    "0x10",
    "9" * 5000,
    "99999999999999999999",
    "-1",
    "+",
    "1_000",
    "\x00",
    "１",
    "nan",
    "[1]",
    "true",
]


def test_malformed_numbers_in_every_field_are_400s(web, served, trap):
    url = new_game(web)
    step, legal = game_page_state(web, url)
    (served / "g.json").write_text(json.dumps(_saved_game()))
    for bad in BAD_NUMBERS:
        for field in ("players", "seed"):
            data = {"game": "citadels", "players": "2", "seat0": "person", "seat1": "random"} | {field: bad}
            if bad.strip():
                refused(call(web.post, "/games", data=data), 400)
        for field in ("seat", "action", "step"):
            data = {"seat": "0", "action": str(legal[0]), "step": str(step)} | {field: bad}
            refused(call(web.post, f"{url}/act", data=data), (400, 409))
        if bad.strip():  # a blank query parameter means "not given"
            refused(call(web.get, "/new", params={"players": bad}), 400)
            refused(call(web.get, url, params={"seat": bad}), 400)
            refused(call(web.post, f"{url}/advance", params={"seat": bad}), 400)
            for field in ("step", "view"):
                refused(call(web.get, "/replay", params={"src": "0/g.json", field: bad}), 400)
            refused(call(web.get, "/replay", params={"src": "0", "match": bad}), 400)
    assert game_page_state(web, url)[0] == step


def test_act_with_an_illegal_or_out_of_range_action_is_a_409_in_every_game(web, trap):
    """Citadels once described action -1 before checking it, and answered 500."""
    for game in ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl"):
        url = new_game(web, game)
        step, legal = game_page_state(web, url)
        size = make_game(game, 2).num_actions
        for action in (-1, -size, size, 10**18, next(a for a in range(size) if a not in legal)):
            response = call(web.post, f"{url}/act", data={"seat": "0", "action": str(action), "step": str(step)})
            refused(response, 409, "illegal action")
        assert game_page_state(web, url)[0] == step


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "../citadels"}, "unknown game"),
        ({"players": "1"}, "players"),
        ({"players": "100000"}, "players"),
        ({"seed": "-5"}, "seed must be 0.."),
        ({"seed": str(2**63)}, "seed must be 0.."),
        ({"opt_max_rounds": "abc def"}, ""),
        ({"opt_max_rounds": "[" * 100}, ""),
        ({"opt_max_rounds": "[" * 60_000}, "the form is larger|at most"),
        ({"opt_max_rounds": "{a = 1}"}, ""),
        ({"opt_max_rounds": "2.5"}, "max_rounds"),
        ({"opt_classic_variant": "7"}, ""),
        ({"opt_classic_variant": "-1"}, ""),
        ({"opt_nonexistent": "1"}, None),
    ],
)
def test_wrong_type_and_wrong_range_setups_are_400s(web, trap, fields, message):
    data = {
        "game": "citadels",
        "players": "4",
        "seat0": "person",
        "seat1": "random",
        "seat2": "random",
        "seat3": "random",
        "seed": "0",
    } | fields
    response = call(web.post, "/games", data=data, follow_redirects=False)
    if message is None:  # an unknown field is ignored, as HTML forms have spare fields
        assert response.status_code == 303
        return
    assert response.status_code in (400, 413), response.text[:300]
    for part in message.split("|"):
        if part in html.unescape(response.text):
            return
    assert not message, response.text[:300]


def test_oversized_bodies_and_fields_are_refused_without_reading_them_whole(web, raw):
    form = {"content-type": "application/x-www-form-urlencoded"}
    refused(call(raw.post, "/games", content=b"a=" + b"x" * (200 * 1024), headers=form), 413, "larger than 64 KB")
    many = "&".join(f"f{i}=1" for i in range(5000))
    refused(call(raw.post, "/games", content=many.encode(), headers=form), 400, "not URL-encoded fields")
    refused(call(raw.post, "/games", content=b"\xff\xfe=\xff", headers=form), 400, "not UTF-8")
    refused(call(web.get, "/replay", params={"src": "0/" + "a" * 10_000}), 400)
    refused(call(web.get, "/replay", params={"src": "0/\x00"}), 400)
    refused(call(web.get, "/games/" + "x" * 5000), 404)


def test_wrong_methods_and_unknown_routes_are_4xx(web):
    for method, path in (
        ("GET", "/games"),
        ("GET", "/games/x/act"),
        ("GET", "/games/x/advance"),
        ("PUT", "/games"),
        ("DELETE", "/"),
        ("POST", "/replay"),
        ("GET", "/nowhere"),
        ("POST", "/rules/citadels"),
        ("GET", "/rules/chess"),
        ("GET", "/rules/%3Cscript%3E"),
        ("GET", "/rules/citadels/../../pyproject.toml"),
        ("GET", "/static/../app.py"),
        ("GET", "/static/%2e%2e/app.py"),
    ):
        response = call(web.request, method, path)
        assert 400 <= response.status_code < 500, (method, path, response.status_code)


# ----- hostile files in a served folder -----------------------------------------------------------------
def _saved_game(moves: int = 20) -> dict:
    game = make_game("urban_sprawl", 2, seed=5)
    for _ in range(moves):
        game.apply(game.legal_action_ids()[-1])
    return game.to_dict()


def _arena_run(folder: Path, records: list, results: dict | None = None) -> None:
    folder.mkdir()
    (folder / "results.json").write_text(
        json.dumps(
            results or {"game": "citadels", "num_players": 2, "seed": 2, "options": {}, "games": 2, "lineup": ["a"]}
        )
    )
    (folder / "matches.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def test_hostile_files_in_a_served_folder_are_4xx_within_the_deadline(web, served, trap):
    (served / "fifo.json").parent.mkdir(exist_ok=True)
    os.mkfifo(served / "fifo.json")
    (served / "loop.json").symlink_to(served / "loop.json")
    (served / "a.json").symlink_to(served / "b.json")
    (served / "b.json").symlink_to(served / "a.json")
    (served / "outside.json").symlink_to("/etc/passwd")
    (served / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (served / "deepish.json").write_text("[" * 40 + "]" * 40)
    (served / "deep_dict.json").write_text('{"a":' * 50_000 + "1" + "}" * 50_000)
    with open(served / "huge.json", "wb") as handle:
        handle.truncate(20 * 2**20)  # sparse: larger than the limit without filling the disk
    (served / "binary.json").write_bytes(os.urandom(4096))
    (served / "latin1.json").write_bytes('{"game": "citadels", "é": 1}'.encode("latin-1"))
    (served / "dir.json").mkdir()
    (served / "list.json").write_text("[1, 2, 3]")
    (served / "nan.json").write_text('{"game": "urban_sprawl", "state": NaN}')
    bad_state = _saved_game()
    bad_state["state"]["ctx"] = {"voc": "evil"}
    (served / "bad_ctx.json").write_text(json.dumps(bad_state))
    bad_history = _saved_game()
    bad_history["history"] = [-1, "x", None]
    (served / "bad_history.json").write_text(json.dumps(bad_history))
    bad_options = _saved_game()
    bad_options["options"] = {"variant": {"nested": [1]}, "__class__": "x"}
    (served / "bad_options.json").write_text(json.dumps(bad_options))
    names = [
        "fifo.json",
        "loop.json",
        "a.json",
        "outside.json",
        "deep.json",
        "deepish.json",
        "deep_dict.json",
        "huge.json",
        "binary.json",
        "latin1.json",
        "dir.json",
        "list.json",
        "nan.json",
        "bad_ctx.json",
        "bad_history.json",
        "bad_options.json",
    ]
    for name in names:
        for route in ("/replay", "/replay/board.png"):
            response = call(web.get, route, params={"src": f"0/{name}"})
            assert 400 <= response.status_code < 500, (name, response.status_code, response.text[:300])
    assert call(web.get, "/").status_code == 200  # the listing walks past all of them
    for spec in ("ppo:0/fifo.json", "ppo:0/loop.json", "ppo:0/outside.json", "ppo:0/huge.json"):
        refused(
            call(web.post, "/games", data={"game": "citadels", "players": "2", "seat0": spec, "seat1": "random"}), 400
        )


def test_hostile_arena_runs_are_4xx_and_never_play_their_agents(web, served, trap):
    good = {
        "match": 0,
        "seed": 1,
        "kinds": ["random", "random"],
        "length": 3,
        "failed": False,
        "reason": "",
        "history": [0, 1, 2],
    }
    evil_kinds = [f"{EVIL_MODULE}:Anything", "ppo:/tmp/model.zip:trust_pickle"]
    _arena_run(
        served / "no_actions",
        [{"run": "header"}, {k: v for k, v in good.items() if k != "history"} | {"kinds": evil_kinds}],
    )
    _arena_run(served / "string_match", [{"match": "1", **{k: v for k, v in good.items() if k != "match"}}])
    _arena_run(
        served / "bad_records",
        [
            good | {"match": 1, "history": "0 1 2"},
            good | {"match": 2, "seed": "x"},
            good | {"match": 3, "kinds": 5},
            good | {"match": 4, "history": [10**9]},
            good | {"match": 5, "kinds": ["a"]},
            good | {"match": 6, "seed": -1},
            [1, 2],
            "text",
            None,
            good | {"match": True},
        ],
    )
    _arena_run(served / "bad_results", [good], {"game": "citadels", "num_players": "two", "seed": 1})
    _arena_run(served / "bad_options", [good], {"game": "citadels", "num_players": 2, "options": {"max_rounds": [1]}})
    _arena_run(served / "bad_players", [good], {"game": "citadels", "num_players": 99, "options": {}})
    fifo_run = served / "fifo_run"
    fifo_run.mkdir()
    os.mkfifo(fifo_run / "results.json")
    (fifo_run / "matches.csv").write_text("match,seed\n")
    fifo_csv = served / "fifo_csv"
    fifo_csv.mkdir()
    (fifo_csv / "results.json").write_text(json.dumps({"game": "citadels", "num_players": 2, "seed": 2}))
    os.mkfifo(fifo_csv / "matches.csv")
    csv_run = served / "csv_run"
    csv_run.mkdir()
    (csv_run / "results.json").write_text(json.dumps({"game": "citadels", "num_players": 2, "seed": 2}))
    (csv_run / "matches.csv").write_text(
        f"match,seed,seats,length,failed,reason\n0,1,{EVIL_MODULE}:Anything random,3,False,\n1,x,y\n"
    )
    cases = [
        ("no_actions", "0", "has no actions"),
        ("no_actions", "99", "not in this run"),
        ("no_actions", "-1", "not in this run"),
        ("string_match", "1", "not in this run"),
        ("bad_results", "0", "num_players"),
        ("bad_options", "0", ""),
        ("bad_players", "0", ""),
        ("fifo_run", "0", ""),
        ("fifo_csv", "0", "not an arena run"),
        ("csv_run", "0", ""),
        ("csv_run", "1", ""),
    ] + [("bad_records", str(m), "") for m in range(1, 8)]
    for run, match, message in cases:
        for route in ("/replay", "/replay/board.png"):
            refused(call(web.get, route, params={"src": f"0/{run}", "match": match}), (400, 404), message)
    assert call(web.get, "/").status_code == 200


# ----- bots under a hard deadline ------------------------------------------------------------------------
def test_a_bot_move_cannot_overrun_its_deadline(web, monkeypatch, trap):
    """The largest search a form may ask for stops at the per-move deadline, inside the search."""
    monkeypatch.setattr(seats, "MAX_MOVE_SECONDS", 0.3)
    url = new_game(
        web, "blue_moon_city", ("ismcts:iters=2000:max_rollout=200:rollout=heuristic:opponents=search", "person")
    )
    started = time.monotonic()
    call(web.post, f"{url}/advance", follow_redirects=False)
    elapsed = time.monotonic() - started
    page = web.get(url).text
    assert 'id="bot-error"' not in page and "fly the" in page  # the bot moved (unbounded: a minute per move)
    assert elapsed < 2.0 + 0.3 + 2.5, elapsed  # advance's own budget, one move's deadline, slack for a slow machine


def test_a_search_stops_at_its_time_limit_whatever_its_iteration_budget():
    from city_envs.agents.ismcts import ISMCTSAgent
    from city_envs.core.infoset import InfoSet

    game = make_game("metropolys", 3, seed=1)
    agent = ISMCTSAgent(0, iters=10**8, time_limit=0.2)
    started = time.monotonic()
    agent.act(InfoSet(game, game.current_player()))
    assert time.monotonic() - started < 1.5 and 1 <= agent.last_iterations < 10**8


# ----- sessions expire ------------------------------------------------------------------------------------
def test_sessions_expire_after_their_idle_time():
    from city_envs.web.seats import parse_seat
    from city_envs.web.sessions import PlaySession

    now = [0.0]
    store = SessionStore(capacity=10, ttl=60.0, clock=lambda: now[0])
    specs = [parse_seat(kind, "citadels", 2, Path) for kind in ("person", "random")]
    owner = "o" * 43
    first, second = (PlaySession("citadels", 2, specs, seed, {}, owner) for seed in (1, 2))
    store.add(first)
    now[0] = 50.0
    store.add(second)
    now[0] = 100.0
    store.get(second.id, owner)  # used: stays
    with pytest.raises(KeyError):
        store.get(first.id, owner)  # idle for 100 s
    now[0] = 159.0
    assert store.listing(owner) == [second]
    now[0] = 161.0
    assert store.listing(owner) == []


def test_an_expired_game_is_a_404_with_a_reason(served):
    app = create_app([served], session_ttl=0.5)
    with form_client(app) as client:
        url = new_game(client)
        time.sleep(0.7)
        refused(call(client.get, url), 404, "no such game")


# ----- the seats a form may have -------------------------------------------------------------------------
def test_a_policy_file_in_a_served_folder_and_the_baseline_play_as_seats(web, served, trap):
    """The built-in seats still work: the committed baseline, and a policy file named as the page lists it
    (a file for another player count is refused, naming the field)."""
    pytest.importorskip("torch")
    import shutil

    from city_envs.agents.policy_agent import baseline_path

    shutil.copy(baseline_path("citadels", 2), served / "mine.safetensors")
    shutil.copy(baseline_path("citadels", 4), served / "four.safetensors")
    assert "ppo:0/mine.safetensors" in web.get("/new?game=citadels&players=2").text
    for seat in ("ppo", "ppo:sample", "ppo:0/mine.safetensors", "ppo:0/mine.safetensors:sample"):
        url = new_game(web, "citadels", (seat, "person"))
        call(web.post, f"{url}/advance")
        page = web.get(url).text
        assert 'id="bot-error"' not in page and f"seat 0 ({seat}): chooses a character" in text_of(page)
    refused(
        call(
            web.post,
            "/games",
            data={"game": "citadels", "players": "2", "seat0": "ppo:0/four.safetensors", "seat1": "person"},
        ),
        400,
        "field 'players' is 4",
    )


def test_a_policy_file_whose_sizes_do_not_fit_the_game_is_refused_without_the_server_path(web, served, trap):
    """A file that says it plays citadels at 2 players but holds another game's network is refused at
    `POST /games`, naming the fields, and the page shows no path of the server's."""
    pytest.importorskip("torch")
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    from city_envs.agents.policy_agent import baseline_path

    source = baseline_path("metropolys", 2)
    with safe_open(str(source), framework="pt") as handle:
        metadata = handle.metadata()
    save_file(load_file(str(source)), str(served / "liar.safetensors"), metadata={**metadata, "game": "citadels"})
    response = call(
        web.post,
        "/games",
        data={"game": "citadels", "players": "2", "seat0": "ppo:0/liar.safetensors", "seat1": "person"},
    )
    refused(response, 400, "do not fit citadels")
    assert str(served) not in html.unescape(response.text) and str(served.parent) not in html.unescape(response.text)


@pytest.mark.parametrize(
    ("method", "url", "headers"),
    [
        ("get", "/static/app.js", {}),
        ("get", "/static/style.css", {}),
        ("get", "/static/missing.js", {}),
        ("get", "/rules", {}),
        ("get", "/nowhere", {}),
        ("post", "/games", {}),
        ("get", "/", {"host": "evil.example"}),
        ("get", "/watch/nothing", {}),
        ("post", "/games/x/delete", {}),
        ("get", "/games/x/save.json", {"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"}),
    ],
)
def test_every_response_carries_the_security_headers(raw, method, url, headers):
    response = getattr(raw, method)(url, headers=headers)
    assert response.headers["x-content-type-options"] == "nosniff", (url, response.status_code)
    assert response.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_checking_the_seats_of_a_new_match_leaves_the_server_answering(web, monkeypatch):
    """`POST /games` checks its seats (policy files: seconds each) off the event loop: a plain GET sent
    meanwhile is answered at once."""
    import threading

    from city_envs.web import app as app_module

    checking, release = threading.Event(), threading.Event()
    parse = app_module.parse_seat

    def slow_parse(*args, **kwargs):
        checking.set()
        release.wait(10)
        return parse(*args, **kwargs)

    monkeypatch.setattr(app_module, "parse_seat", slow_parse)
    web.get("/")  # the form token, before the two requests overlap
    creating = _pool.submit(new_game, web, "citadels", ("person", "random"))
    assert checking.wait(DEADLINE)
    started = time.monotonic()
    try:
        assert web.get("/static/style.css").status_code == 200
        waited = time.monotonic() - started
    finally:
        release.set()
    assert waited < 5, f"a GET waited {waited:.1f} s behind the seat checks"
    assert creating.result(DEADLINE).startswith("/games/")


def test_bot_moves_of_many_matches_think_at_most_bot_threads_at_once(served, monkeypatch):
    """Many clients keeping bots busy: the moves wait their turn (at most `bot_threads` at once) and
    the server still answers a plain GET meanwhile."""
    import threading

    from city_envs.web.sessions import PlaySession

    running, most, lock, release = [0], [0], threading.Lock(), threading.Event()
    advance = PlaySession.advance

    def slow_advance(self):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(3)
        with lock:
            running[0] -= 1
        return advance(self)

    monkeypatch.setattr(PlaySession, "advance", slow_advance)
    with form_client(create_app([served], bot_threads=2), raise_server_exceptions=False) as client:
        urls = [new_game(client, "citadels", ("random", "person")) for _ in range(5)]
        moves = [_pool.submit(client.post, f"{url}/advance") for url in urls[:4]]
        time.sleep(1)
        started = time.monotonic()
        assert client.get("/static/style.css").status_code == 200
        assert time.monotonic() - started < 2
        release.set()
        assert all(move.result(DEADLINE).status_code < 500 for move in moves)
    assert most[0] == 2


@pytest.mark.parametrize("route", ["/replay", "/replay/board.png"])
def test_another_sites_page_cannot_read_a_served_file(raw, served, route):
    (served / "game.json").write_text(json.dumps(_saved_game()))
    url = f"{route}?src=0/game.json"
    for site_, mode in (("cross-site", "no-cors"), ("cross-site", "cors"), ("same-site", "no-cors")):
        refused(raw.get(url, headers={"sec-fetch-site": site_, "sec-fetch-mode": mode}), 403, "another site")
    for headers in (
        {},  # a client that sends no fetch metadata
        {"sec-fetch-site": "same-origin", "sec-fetch-mode": "no-cors"},  # this site's own page
        {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"},  # a link followed by the user
        {"sec-fetch-site": "none", "sec-fetch-mode": "navigate"},  # typed in the address bar
    ):
        assert raw.get(url, headers=headers).status_code == 200, headers
