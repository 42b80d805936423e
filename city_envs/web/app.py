"""The `city-envs serve` web app: play any game against any bot, and replay saved games and arena matches.

Server-rendered pages (Starlette and Jinja2 templates) with one small script; everything is served
from this package, so it works offline. A person sees the public table (each game's board, an inline
SVG document where the game draws one and else a PNG, shows only public information, and scores are
public scores until the end) and their own seat's private information (`Game.render_private`), never another seat's.

Who sees what: a match belongs to the browser that started it. Each browser gets a random owner
token (`secrets`, in an HttpOnly, SameSite=Strict cookie) with its first page; a match keeps the token
it was started with, and only a request carrying it lists the match, opens its page (with the seats'
private information and the action buttons), moves in it, lets its bots move, saves, replays or
deletes it. Any other browser gets the 404 page of a match that is not there. The owner may share the
match's watch link (`/watch/<id>`, a second random name): it shows the public table only (the page
of a match seen by no seat: board, public scores and the public log; not the seed, which would give
every deal away), refreshes itself, and has no buttons, no save and no replay. The files of the
served folders are the server's, not a browser's: any browser that reaches the server may replay them.

It listens on the user's machine, where any web page they visit can send it requests, so it trusts
nothing it receives: a request whose `Host` is not the address it was started on is refused (DNS
rebinding); a write (POST) needs a same-origin request carrying the browser session's form token
(a cookie only this app's pages can read); a file (a board image, a saved game, a replay read from
a served folder) is never given to another site's page (`file_route`); seats are built-in agents
within server-side limits (`city_envs.web.seats`), never code; replays never create agents; served
files are read only as bounded data, each within its size cap and parsed once per version
(`city_envs.web.replays`). Every bad request gets a 4xx page (or JSON, when asked for) saying what
was wrong.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import logging
import os
import re
import secrets
import socket
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial, wraps
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from anyio import CapacityLimiter, to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from city_envs.core.game import Game
from city_envs.core.registry import GAMES, game_class
from city_envs.core.settings import parse_value
from city_envs.core.svg import SEAT_COLOURS
from city_envs.web.at_hand import action_notes, legend, missing_choices, summary_html
from city_envs.web.decisions import decision_words
from city_envs.web.panels import public_parts, resources
from city_envs.web.replays import SEATS_KEY, FileTooLarge, Replay, Sources, is_arena_run
from city_envs.web.results import find_benchmarks, ladder_runs, ladder_table, ladders, read_benchmark, read_run
from city_envs.web.seats import BOTS, PERSON, SEARCH_LIMITS, parse_seat
from city_envs.web.sessions import PlaySession, SessionStore

HERE = Path(__file__).resolve().parent
MAX_FORM_BYTES = 64 * 1024
MAX_OPTION_CHARS = 200
MAX_SEED = 2**63 - 1
MAX_MOVES_AT_ONCE = 100  # bot moves one request to /advance may ask for (the page asks for one at a time)
BOT_THREADS = max(2, os.cpu_count() or 2)  # bot moves thinking at once (a search holds a core)
CSRF_COOKIE = "city_envs_form_token"
OWNER_COOKIE = "city_envs_owner"
TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")
CSRF_FIELD = "csrf_token"
FORM_TYPE = "application/x-www-form-urlencoded"
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,19}")
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
log = logging.getLogger("city_envs.web")
_render_lock = threading.Lock()  # matplotlib drawing is kept to one frame at a time


class SecurityHeaders:
    """ASGI middleware: `SECURITY_HEADERS` on every response (pages, files, images, errors), unless set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    if key not in headers:
                        headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BadRequest(Exception):
    """Input the app refuses, with the reason shown to the user."""

    def __init__(self, message: str, status: int = 400, back: str = "") -> None:
        super().__init__(message)
        self.message, self.status, self.back = message, status, back


def title(game_name: str) -> str:
    return game_name.replace("_", " ").title()


def png(game: Game) -> Response:
    from PIL import Image

    with _render_lock:
        frame = game.render_image()
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG")
    return Response(buffer.getvalue(), media_type="image/png", headers={"Cache-Control": "no-store"})


def int_param(value: Any, name: str, default: int | None = None) -> int:
    """A whole number in ASCII digits (at most 19 of them), else a 400 naming the parameter."""
    if value in (None, ""):
        if default is None:
            raise BadRequest(f"missing {name}")
        return default
    if not isinstance(value, str) or not WHOLE_NUMBER.fullmatch(value.strip()):
        raise BadRequest(f"{name} must be a whole number, not {str(value)[:40]!r}")
    return int(value)


def allowed_hosts_for(host: str) -> list[str]:
    """The `Host` names a request to a server bound to `host` may carry: that address, and for a
    loopback address `localhost` too; for every interface (0.0.0.0 or ::) this machine's names and
    addresses. Any other name could be an attacker's domain resolving to this machine (DNS rebinding)."""
    names = {host.strip("[]")}
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if host in ("localhost", "") or (address is not None and (address.is_loopback or address.is_unspecified)):
        names |= {"localhost", "127.0.0.1", "::1"}
    if address is not None and address.is_unspecified:
        names |= {socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            names |= {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)}
    names.discard("")
    return sorted(f"[{name}]" if ":" in name else name for name in names)


def group_actions(game: Game, actions: list[int]) -> list[tuple[str, list[tuple[int, str]]]]:
    """Legal actions grouped by what they do (the first word of their description: build, keep, bid ...)."""
    groups: OrderedDict[str, list[tuple[int, str]]] = OrderedDict()
    for action in actions:
        text = game.describe_action(action)
        words = text.split()
        key = " ".join(words[:2]) if len(words) > 1 and words[0] in ("the", "a", "an") else (words or [""])[0]
        groups.setdefault(key, []).append((action, text))
    if len(groups) == 1:
        return [(decision_words(game), next(iter(groups.values())))]
    return list(groups.items())


MAX_LIST = 40  # the most choice buttons a page lists in one run; longer groups are split


def split_long(
    groups: list[tuple[str, list[tuple[int, str]]]], subgroup: Callable[[int], str] | None = None
) -> list[tuple[str, list[tuple[int, str]], bool]]:
    """Each group of choices as (heading, items, folded): a group of more than `MAX_LIST` choices folded
    under the headings `subgroup` gives its choices (where it names each and none holds more than the
    limit: Big City's streets by neighbourhood), else in runs of at most that many, each under a
    heading naming its first and last choice."""
    shown = []
    for heading, items in groups:
        if len(items) <= MAX_LIST:
            shown.append((heading, items, False))
            continue
        parts: OrderedDict[str, list[tuple[int, str]]] = OrderedDict()
        for item in items:
            parts.setdefault(subgroup(item[0]) if subgroup else "", []).append(item)
        if "" not in parts and all(len(part) <= MAX_LIST for part in parts.values()):
            shown += [(f"{name} ({len(part)})", part, True) for name, part in parts.items()]
            continue
        runs = -(-len(items) // MAX_LIST)
        size = -(-len(items) // runs)
        for start in range(0, len(items), size):
            run = items[start : start + size]
            shown.append((f"{heading}: {run[0][1]} … {run[-1][1]} ({len(run)})", run, True))
    return shown


def player_panels(game: Game, who: Callable[[int], str], viewer: int | None) -> list[dict[str, Any]]:
    """Each seat's panel: its name, public score and what that adds up from (where public), and its
    public resources; which seat acts and which is the viewer's."""
    parts = public_parts(game)
    scores = game.scores() if game.is_over() else game.public_scores()
    current = -1 if game.is_over() else game.current_player()
    return [
        {
            "seat": seat,
            "name": who(seat),
            "score": f"{scores[seat]:g}",
            "parts": " + ".join(f"{value:g} {what}" for what, value in parts[seat])
            if parts is not None and len(parts[seat]) > 1
            else (parts[seat][0][0] if parts is not None and parts[seat] else ""),
            "resources": row,
            "current": seat == current,
            "mine": seat == viewer,
            "colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)],
        }
        for seat, row in enumerate(resources(game))
    ]


def last_move(events: Sequence[Any]) -> Any | None:
    """The move the board marks: the latest one with a place on the board, among the last seat's
    latest run of moves (an older seat's move is not the last move)."""
    if not events:
        return None
    seat = events[-1].seat
    for event in reversed(events):
        if event.seat != seat:
            return None
        if event.mark:
            return event
    return None


def with_mark(board_svg: str | None, mark: str) -> str | None:
    """The board with the last move's place outlined (its points are numbers only, from `board_mark`)."""
    if not board_svg or not mark:
        return board_svg
    outline = f'<polygon class="last-move" points="{mark}"/>'
    head, _, tail = board_svg.rpartition("</svg>")
    return f"{head}{outline}</svg>{tail}"


def outcome(game: Game, names: Sequence[str]) -> dict:
    """Who won and the scores a person may see: public scores during play; at the end (every secret
    is revealed then) the final scores, what each adds up from, who won and why in one line (seats
    called by `names`), and the whole table in words."""
    over = game.is_over()
    winners = set(game.winners()) if over else set()
    scores = game.scores() if over else game.public_scores()
    parts = [" + ".join(f"{points:g} {what}" for what, points in seat) for seat in game.score_parts()] if over else []
    return {
        "scores": [f"{x:g}" for x in scores],
        "winners": winners,
        "truncated": game.is_truncated(),
        "parts": parts,
        "result": game.describe_result(names) if over else "",
        "breakdown": game.describe_table() if over else "",
    }


@dataclass(frozen=True)
class Site:
    """What every handler shares, kept on the app's state: the page templates, the served folders
    (replays and policy files) and the matches being played."""

    templates: Jinja2Templates
    sources: Sources
    store: SessionStore


def site(request: Request) -> Site:
    return request.app.state.site


def browser_token(request: Request, cookie: str) -> tuple[str, bool]:
    """The browser's random token kept in `cookie` and whether it is new (made now: none, or a malformed one, came)."""
    token = request.cookies.get(cookie, "")
    if TOKEN.fullmatch(token):
        return token, False
    return secrets.token_urlsafe(32), True


def set_token(response: Response, cookie: str, token: str) -> None:
    """Keep `token` in the browser: sent back only to this site, never to its scripts."""
    response.set_cookie(cookie, token, httponly=True, samesite="strict", path="/")


def owner_of(request: Request) -> str:
    """The owner token the browser sent ("" for none: such a browser owns no match)."""
    token, new = browser_token(request, OWNER_COOKIE)
    return "" if new else token


def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    """The template `name`; a browser that came without its form or owner token is given one."""
    token, new = browser_token(request, CSRF_COOKIE)
    owner, new_owner = browser_token(request, OWNER_COOKIE)
    response = site(request).templates.TemplateResponse(
        request, name, context | {"csrf": token}, status_code=status, headers=SECURITY_HEADERS
    )  # the headers here too: a 500 page is made outside the middleware
    if new:
        set_token(response, CSRF_COOKIE, token)
    if new_owner:
        set_token(response, OWNER_COOKIE, owner)
    return response


def own_origin(request: Request) -> str:
    """This site's origin as a browser names it (the scheme and the `Host` the request was sent to)."""
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


def check_same_origin(request: Request) -> None:
    """A browser names the page a form came from (`Origin`, or `Sec-Fetch-Site`): refuse another site's."""
    origin = request.headers.get("origin")
    if origin is not None and origin != own_origin(request):
        raise BadRequest(f"a form from another site ({origin[:100]}) may not change anything here", 403)
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise BadRequest("a request from another site may not change anything here", 403)


def refuse_cross_site_reads(request: Request) -> None:
    """Files are read by this site's pages and by the user's own navigation, never fetched by another
    site's page (an image, a script, a fetch: `Sec-Fetch-Site` and `Sec-Fetch-Mode`, or an `Origin`
    that is not this site's where a browser sends no fetch metadata)."""
    origin = request.headers.get("origin")
    if (origin is not None and origin != own_origin(request)) or (
        request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none")
        and request.headers.get("sec-fetch-mode", "navigate") != "navigate"
    ):
        raise BadRequest("another site's page may not read the files served here", 403)


def file_route(path: str, endpoint: Callable[[Request], Response]) -> Route:
    """A route that answers with a file (an image, a saved game, a replay of a served file): refused to
    another site's page (`refuse_cross_site_reads`) before `endpoint` reads anything."""

    @wraps(endpoint)
    def guarded(request: Request) -> Response:
        refuse_cross_site_reads(request)
        return endpoint(request)

    return Route(path, guarded)


async def form_data(request: Request) -> dict[str, str]:
    """The form of a write: same origin, URL-encoded, at most `MAX_FORM_BYTES`, with the session's token."""
    check_same_origin(request)
    if request.headers.get("content-type", FORM_TYPE).split(";")[0].strip().lower() != FORM_TYPE:
        raise BadRequest(f"a form is sent as {FORM_TYPE}", 415)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise BadRequest(f"the form is larger than {MAX_FORM_BYTES // 1024} KB", 413)
        chunks.append(chunk)
    try:
        form = dict(parse_qsl(b"".join(chunks).decode("utf-8"), keep_blank_values=True, max_num_fields=200))
    except UnicodeDecodeError:
        raise BadRequest("the form is not UTF-8 text") from None
    except ValueError as error:
        raise BadRequest(f"the form is not URL-encoded fields: {error}") from None
    token = request.cookies.get(CSRF_COOKIE, "")
    if not token or not secrets.compare_digest(form.get(CSRF_FIELD, "").encode(), token.encode()):
        raise BadRequest(
            "this form did not come from this app's own page (its form token is missing or "
            "wrong): reload the page and try again",
            403,
        )
    return form


def served_policy_file(sources: Sources, src: str) -> Path:
    """A regular file inside a served folder (a policy file a seat may play)."""
    path = sources.resolve(src)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError as error:
        raise ValueError(f"{src!r} cannot be read: {error.strerror}") from None
    if not regular:
        raise ValueError(f"{src!r} is not a regular file")
    return path


def seat_param(session: PlaySession, value: str) -> int:
    seat = int_param(value, "seat")
    if not 0 <= seat < session.game.num_players:
        raise BadRequest(f"seat must be 0..{session.game.num_players - 1}, not {seat}")
    return seat


NO_SUCH_GAME = (
    "no such game in this browser: a game opens only in the browser that started it (another may watch "
    "it by the watch link its owner shares), and the server drops games when it restarts, after six idle "
    "hours or to make room for newer ones"
)


def session_of(request: Request) -> PlaySession:
    """The match of the route's `game_id`, if this browser started it; else the 404 of a match not here."""
    try:
        return site(request).store.get(request.path_params["game_id"], owner_of(request))
    except KeyError:
        raise BadRequest(NO_SUCH_GAME, 404) from None


def watched_session(request: Request) -> PlaySession:
    """The match whose watch link is the route's `watch_id`, else a 404."""
    try:
        return site(request).store.watched(request.path_params["watch_id"])
    except KeyError:
        raise BadRequest("no game to watch here: the link is wrong, or the game was deleted or dropped", 404) from None


# ----- pages ------------------------------------------------------------------------------
def home(request: Request) -> Response:
    sources, store = site(request).sources, site(request).store
    runs, files, _ = sources.listing()
    return page(
        request,
        "home.html",
        games=GAMES,
        classes={g: game_class(g) for g in GAMES},
        sessions=store.listing(owner_of(request)),
        runs=runs,
        files=files,
        roots=sources.roots,
        ladders=ladders([name for name, _ in runs]),
        benchmarks=find_benchmarks(sources),
    )


def new_game(request: Request) -> Response:
    name = request.query_params.get("game", GAMES[0])
    if name not in GAMES:
        raise BadRequest(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    cls = game_class(name)
    players = int_param(request.query_params.get("players"), "players", min(4, cls.max_players))
    try:
        cls.check_num_players(players)
    except ValueError as error:
        raise BadRequest(str(error)) from None
    policies = [f"ppo:{src}" for src in site(request).sources.listing()[2]]
    return page(
        request,
        "new.html",
        games=GAMES,
        game=name,
        cls=cls,
        players=players,
        bots=BOTS,
        person=PERSON,
        policies=policies,
        limits=SEARCH_LIMITS,
    )


def new_session(
    name: str,
    players: int,
    texts: list[str],
    resolve: Callable[[str], Path],
    seed: int,
    options: dict[str, Any],
    owner: str,
    play_forced: bool = False,
) -> PlaySession:
    """A match of the seats `texts` (each parsed and checked, policy files loaded), owned by `owner`."""
    seats = [parse_seat(text, name, players, resolve) for text in texts]
    return PlaySession(name, players, seats, seed, options, owner, play_forced)


async def create_game(request: Request) -> Response:
    form = await form_data(request)
    name = form.get("game", "")
    if name not in GAMES:
        raise BadRequest(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    cls = game_class(name)
    players = int_param(form.get("players"), "players")
    # no seed given: a random one, which no page shows before the game ends (it would deal every hand)
    seed = int_param(form.get("seed"), "seed", secrets.randbelow(10**6))
    if not 0 <= seed <= MAX_SEED:
        raise BadRequest(f"seed must be 0..{MAX_SEED}, not {seed}")
    try:
        cls.check_num_players(players)
        options = {}
        for key, option in cls.options_spec.items():
            text = form.get(f"opt_{key}", "").strip()
            if len(text) > MAX_OPTION_CHARS:
                raise ValueError(f"option {key!r} is at most {MAX_OPTION_CHARS} characters")
            if option.choices is not None and WHOLE_NUMBER.fullmatch(text) and 0 <= int(text) < len(option.choices):
                options[key] = option.choices[int(text)]
            elif text:
                options[key] = parse_value(text)
        texts = [
            form.get(f"custom{seat}", "").strip() or form.get(f"seat{seat}", "").strip() or PERSON
            for seat in range(players)
        ]
        resolve = partial(served_policy_file, site(request).sources)
        owner, new_owner = browser_token(request, OWNER_COOKIE)
        # off the event loop: checking a policy file reads and loads it (seconds for a large one)
        forced = form.get("play_forced", "") == "on"  # a checkbox: sent only when ticked
        session = await run_in_threadpool(new_session, name, players, texts, resolve, seed, options, owner, forced)
    except FileTooLarge as error:
        raise BadRequest(str(error), 413) from None
    except (TypeError, ValueError, RecursionError, OSError) as error:
        raise BadRequest(str(error)) from None
    site(request).store.add(session)
    response = RedirectResponse(f"/games/{session.id}", status_code=303)
    if new_owner:
        set_token(response, OWNER_COOKIE, owner)
    return response


def play(request: Request) -> Response:
    """A match's page for its owner: the table, the person's seat and its choices."""
    session = session_of(request)
    params = request.query_params
    wanted = params.get("seat")
    seat = seat_param(session, wanted) if wanted else None
    if "action" not in params:
        return table_page(request, session, seat, watching=False)
    # a choice that completes a decision made in parts, shown before it is played (`PlaySession.preview`)
    action, step = int_param(params.get("action"), "action"), int_param(params.get("step"), "step")
    back = f"/games/{session.id}" + (f"?seat={seat}" if seat is not None else "")
    if step != len(session.game.history):
        raise BadRequest("that choice was made on an out-of-date page; the game has moved on", 409, back=back)
    if seat is None or seat != session.game.current_player() or session.agents[seat] is not None:
        raise BadRequest("only the seat to choose can preview its choice", 409, back=back)
    with session.lock:
        try:
            after = session.preview(seat, action)
        except ValueError as error:
            raise BadRequest(str(error), 409, back=back) from None
    return table_page(request, session, seat, watching=False, preview=(action, after))


def watch(request: Request) -> Response:
    """A match's page by its watch link: the public table only, no seat's view, nothing to press."""
    return table_page(request, watched_session(request), None, watching=True)


def table_page(
    request: Request,
    session: PlaySession,
    wanted_seat: int | None,
    watching: bool,
    preview: tuple[int, Game | None] | None = None,
) -> Response:
    """A match's page: to its owner, the seat `wanted_seat` (`PlaySession.viewer`) and its choices; to a
    watcher, the table as no seat sees it. With `preview` (a choice completing a decision made in parts,
    and the table after it where that shows nothing new to the seat), the table after it and a button
    that plays it, in place of the choices."""
    game = session.game
    who = partial(session.who, to_owner=not watching)
    with session.lock:
        viewer = None if watching else session.viewer(wanted_seat)
        current = game.current_player()
        forced = session.forced_choice() is not None  # played by the page's next advance, not a button
        choosing = viewer is not None and viewer == current and not session.error and not forced
        groups = group_actions(game, game.presentation_order(game.legal_action_ids())) if choosing else []
        private = game.render_private(viewer) if viewer is not None else ""
        events = [(event, event.private if event.seat == viewer else event.public) for event in session.log]
        so_far = game.describe_partial() if choosing else ""
        marked = last_move(session.log)
        board_svg = with_mark(
            game.render_svg({a: text for _, items in groups for a, text in items}), marked.mark if marked else ""
        )
        finishing = session.finishing(viewer) if choosing and viewer is not None and so_far else set()
        shown_preview = None
        if preview is not None and choosing:
            action, after = preview
            shown_preview = {"action": action, "text": game.describe_action(action), "board": after is not None}
            groups = []
            if after is not None:
                board_svg = after.render_svg()
        own = [viewer] if viewer is not None else []
        context: dict[str, Any] = dict(
            session=session,
            watching=watching,
            base=f"/watch/{session.watch_id}" if watching else f"/games/{session.id}",
            game=game,
            viewer=viewer,
            current=current,
            groups=split_long(groups, game.choice_group),
            board_svg=board_svg,
            marked=marked,
            panels=player_panels(game, who, viewer),
            clickable='class="choice"' in (board_svg or ""),
            private=private,
            events=events[-300:],
            forced=forced,
            undoable=choosing and viewer is not None and session.undoable(viewer),
            so_far=so_far,
            finishing=finishing,
            preview=shown_preview,
            step=len(game.history),
            decision=decision_words(game),
            who=who,
            outcome=outcome(game, [who(seat) for seat in range(game.num_players)]),
            bots_to_move=session.bots_to_move(),
            notes=action_notes(game, [item for _, items in groups for item in items]),
            legend=legend(game, own),
            missing=missing_choices(game, viewer) if choosing and viewer is not None else [],
        )
    return page(request, "play.html", **context)


async def act(request: Request) -> Response:
    form = await form_data(request)  # a form from elsewhere is refused before anything is looked up
    session = session_of(request)
    seat = int_param(form.get("seat"), "seat")
    action = int_param(form.get("action"), "action")
    step = int_param(form.get("step"), "step")
    try:
        await to_thread.run_sync(session.act, seat, action, step, limiter=request.app.state.bot_moves)
    except ValueError as error:
        raise BadRequest(str(error), 409, back=f"/games/{session.id}") from None
    return RedirectResponse(f"/games/{session.id}?seat={seat}", status_code=303)


async def undo(request: Request) -> Response:
    """Take back the person's last move of a decision still being made (`PlaySession.undo`)."""
    form = await form_data(request)
    session = session_of(request)
    seat = int_param(form.get("seat"), "seat")
    step = int_param(form.get("step"), "step")
    try:
        await to_thread.run_sync(session.undo, seat, step)
    except ValueError as error:
        raise BadRequest(str(error), 409, back=f"/games/{session.id}") from None
    return RedirectResponse(f"/games/{session.id}?seat={seat}", status_code=303)


async def advance(request: Request) -> Response:
    await form_data(request)
    session = session_of(request)
    seat = request.query_params.get("seat", "")
    back = f"/games/{session.id}" + (f"?seat={seat_param(session, seat)}" if seat else "")
    moves = request.query_params.get("moves")
    max_moves = int_param(moves, "moves") if moves else None
    if max_moves is not None and not 1 <= max_moves <= MAX_MOVES_AT_ONCE:
        raise BadRequest(f"moves must be 1..{MAX_MOVES_AT_ONCE}, not {max_moves}")
    move = session.advance if max_moves is None else partial(session.advance, max_moves=max_moves)
    await to_thread.run_sync(move, limiter=request.app.state.bot_moves)
    return RedirectResponse(back, status_code=303)


async def delete_game(request: Request) -> Response:
    """Drop a match (its owner's form only), and go home."""
    await form_data(request)
    try:
        site(request).store.remove(request.path_params["game_id"], owner_of(request))
    except KeyError:
        raise BadRequest(NO_SUCH_GAME, 404) from None
    return RedirectResponse("/", status_code=303)


def table_png(session: PlaySession) -> Response:
    """The public table of `session` as a PNG (drawn from a copy, so the match is not held meanwhile)."""
    with session.lock:
        twin = session.game.clone()
    return png(twin)


def board(request: Request) -> Response:
    return table_png(session_of(request))


def watch_board(request: Request) -> Response:
    return table_png(watched_session(request))


def save(request: Request) -> Response:
    session = session_of(request)
    if not session.game.is_over():
        raise BadRequest(
            "a game can be saved once it is over (the file holds every hidden card)",
            409,
            back=f"/games/{session.id}",
        )
    name = f"{session.game.name}-seed{session.seed}.json"
    saved = session.game.to_dict() | {SEATS_KEY: list(session.seats)}  # its replay says who sat where
    return JSONResponse(saved, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def rules(request: Request) -> Response:
    """A game's rules in short (its package's summary, the same text as in docs/games)."""
    name = request.path_params["game_name"]
    if name not in GAMES:
        raise BadRequest(f"no rules for {name[:40]!r}: known games are {', '.join(GAMES)}", 404)
    return page(request, "rules.html", game_name=name, summary=summary_html(name), games=GAMES)


def rules_index(request: Request) -> Response:
    return page(request, "rules.html", game_name=None, summary="", games=GAMES)


# ----- replays ----------------------------------------------------------------------------
@contextlib.contextmanager
def served_file_errors() -> Iterator[None]:
    """A served file that cannot be read, as the page saying why: 413 over its cap, 404 missing, else 400."""
    try:
        yield
    except FileTooLarge as error:
        raise BadRequest(str(error), 413) from None
    except FileNotFoundError as error:
        raise BadRequest(str(error), 404) from None
    except (OSError, ValueError) as error:
        raise BadRequest(str(error)) from None


def load_replay(request: Request) -> tuple[Replay, int, str, str]:
    params = request.query_params
    src = params.get("src", "")
    match = int_param(params.get("match"), "match") if params.get("match") else None
    try:
        with served_file_errors():
            if src.startswith("live/"):
                session = site(request).store.get(src.removeprefix("live/"), owner_of(request))
                if not session.game.is_over():
                    raise BadRequest("a game can be replayed once it is over", 409)
                game = session.game
                replay = Replay(
                    f"{title(game.name)} played here",
                    game.name,
                    game.num_players,
                    dict(game.options),
                    game.seed,
                    list(game.history),
                    [session.who(s) for s in range(game.num_players)],
                )
                replay.describe_steps()
            else:
                replay = site(request).sources.load(src, match)
    except KeyError:
        raise BadRequest(NO_SUCH_GAME, 404) from None
    step = int_param(params.get("step"), "step", 0)
    if not 0 <= step <= len(replay.history):
        raise BadRequest(f"decision {step} is outside this replay (0..{len(replay.history)})")
    view = params.get("view", "full")
    if view != "full" and not (WHOLE_NUMBER.fullmatch(view) and 0 <= int(view) < replay.num_players):
        raise BadRequest(f"view must be 'full' or a seat 0..{replay.num_players - 1}, not {view[:40]!r}")
    return replay, step, view, src


def replay_page(request: Request) -> Response:
    replay, step, view, src = load_replay(request)
    game = replay.game_at(step)
    seats = range(replay.num_players) if view == "full" else [int(view)]
    private = [(seat, game.render_private(seat)) for seat in seats]
    steps = replay.describe_steps()[:step]  # the moves made so far: never one still to come
    shown = [(s, s.private if view == "full" or int(view) == s.seat else s.public) for s in steps]
    match = request.query_params.get("match", "")

    def link(**changes: Any) -> str:
        query = {"src": src, "step": step, "view": view} | ({"match": match} if match else {})
        return "/replay?" + urlencode(query | changes)

    return page(
        request,
        "replay.html",
        replay=replay,
        step=step,
        view=view,
        game=game,
        private=private,
        shown=shown,
        link=link,
        total=len(replay.history),
        outcome=outcome(game, replay.seats),
        next_seat=None if game.is_over() or step == len(replay.history) else game.current_player(),
        decision=decision_words(game),
        legend=legend(game, list(seats)),
        board_svg=game.render_svg(),
        board=f"/replay/board.png?{urlencode({'src': src, 'step': step, 'match': match})}",
    )


def results_page(request: Request) -> Response:
    """Win rates with their intervals from a served results file: an arena run, a ladder (a folder of
    runs) or a benchmark (`city_envs.web.results`)."""
    sources = site(request).sources
    src = request.query_params.get("src", "")
    with served_file_errors():
        path = sources.resolve(src)
        if path.is_dir() and is_arena_run(path):
            summary = sources.resolve(sources.name(path / "results.json"))
            return page(request, "results.html", kind="run", src=src, run=read_run(summary))
        if path.is_dir() and not (path / "results.json").is_file():
            runs = ladder_runs(sources, path)
            if not runs:
                raise ValueError(f"{src!r} holds no results.json and no arena runs")
            return page(request, "results.html", kind="ladder", src=src, runs=runs, tables=ladder_table(runs))
        file = sources.resolve(sources.name(path / "results.json")) if path.is_dir() else path
        if file.name != "results.json":
            raise ValueError(f"{src!r} is not a results.json or a folder of results")
        if is_arena_run(file.parent):
            return page(request, "results.html", kind="run", src=sources.name(file.parent), run=read_run(file))
        return page(request, "results.html", kind="benchmark", src=src, benchmark=read_benchmark(file))


def replay_board(request: Request) -> Response:
    replay, step, _, _ = load_replay(request)
    return png(replay.game_at(step))


# ----- errors -----------------------------------------------------------------------------
def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def error_response(request: Request, message: str, status: int, back: str = "") -> Response:
    if wants_json(request):
        return JSONResponse({"error": message}, status_code=status)
    return page(request, "error.html", status=status, message=message, code=status, back=back)


async def bad_request(request: Request, error: BadRequest) -> Response:
    return error_response(request, error.message, error.status, error.back)


async def http_error(request: Request, error: HTTPException) -> Response:
    return error_response(request, str(error.detail), error.status_code)


async def server_error(request: Request, error: Exception) -> Response:
    log.exception("error serving %s", request.url.path)
    return error_response(request, f"internal error ({type(error).__name__}); the server log has the details", 500)


ROUTES = [
    Route("/", home),
    Route("/new", new_game),
    Route("/games", create_game, methods=["POST"]),
    Route("/games/{game_id}", play),
    Route("/games/{game_id}/act", act, methods=["POST"]),
    Route("/games/{game_id}/advance", advance, methods=["POST"]),
    Route("/games/{game_id}/undo", undo, methods=["POST"]),
    Route("/games/{game_id}/delete", delete_game, methods=["POST"]),
    file_route("/games/{game_id}/board.png", board),
    file_route("/games/{game_id}/save.json", save),
    Route("/watch/{watch_id}", watch),
    file_route("/watch/{watch_id}/board.png", watch_board),
    Route("/rules", rules_index),
    Route("/rules/{game_name}", rules),
    file_route("/replay", replay_page),
    file_route("/replay/board.png", replay_board),
    file_route("/results", results_page),
    Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
]


def create_app(
    folders: Sequence[str | Path] | None = None,
    max_games: int = 64,
    host: str = "127.0.0.1",
    session_ttl: float = 6 * 3600.0,
    bot_threads: int = BOT_THREADS,
) -> Starlette:
    """The app; replays and policy files are read only from `folders` (and finished matches played in
    it); requests must name `host` (`allowed_hosts_for`); a match unused for `session_ttl` s is dropped;
    at most `bot_threads` bot moves (searches) run at once."""
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(title=title)
    app = Starlette(
        routes=ROUTES,
        # Starlette types a handler as taking any Exception, so one for a subclass does not match its key's
        # class (Kludex/starlette#1142, #2417); a handler is only ever called with its key's exceptions
        exception_handlers={
            BadRequest: bad_request,  # type: ignore[dict-item]
            HTTPException: http_error,  # type: ignore[dict-item]
            Exception: server_error,
        },
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts_for(host), www_redirect=False),
        ],
    )
    # bots think in threads, at most BOT_THREADS at once: the others wait, and never take every thread of
    # the pool that serves files and checks seats
    app.state.bot_moves = CapacityLimiter(bot_threads)
    app.state.site = Site(templates, Sources(list(folders or [])), SessionStore(capacity=max_games, ttl=session_ttl))
    return app


def serve(folders: list[str], host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    app = create_app(folders, host=host)
    print(f"city-envs: open http://{host}:{port}/ (Ctrl+C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
