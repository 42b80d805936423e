"""Live matches played through the web app: a person (or several) against bots, one lock per match.

A `PlaySession` owns one `Game`, the agents of its bot seats and an event log. Every change goes
through `act` (a person's choice) or `advance` (the bots' moves), each under the session's lock,
so two browser tabs on one match cannot interleave, and two matches never share anything mutable.
Seats are checked `SeatSpec`s (`city_envs.web.seats`): built-in agents only. A session not used for
`SessionStore.ttl` seconds is dropped.

A match belongs to the browser that started it: it keeps that browser's owner token (a random
cookie, `city_envs.web.app`), and the store hands it out only against that token (`get`, `listing`,
`remove`); to anyone else it does not exist. Its `watch_id` is a second random name the owner may
share: `watched` gives the match for it, and the app shows it as the public table only.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from city_envs.agents.base import Agent
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import game_class, make_game
from city_envs.web.replays import board_mark, play_step
from city_envs.web.seats import PERSON, SeatSpec

UNDO_SAMPLES = 3  # redrawn worlds in which a move must teach its seat nothing to be taken back


@dataclass(frozen=True)
class Event:
    """One applied decision, as the table saw it (`public`) and as its own seat did (`private`)."""

    step: int
    seat: int
    public: str
    private: str
    points: tuple[float, ...]  # each seat's change of public score by this decision
    outcome: tuple[str, ...] = ()  # what the table learnt from it (`Game.describe_outcome`), public
    payouts: tuple[str, ...] = ()  # each change of a seat's score or public resource, a line each, public
    mark: str = ""  # the place on the board the move was made on (`board_mark`), for a public move only
    forced: bool = False  # the seat's only choice, played for a person who asked for it


class PlaySession:
    """One match in progress in the web app."""

    def __init__(
        self,
        game_name: str,
        num_players: int,
        seats: list[SeatSpec],
        seed: int,
        options: dict,
        owner: str,
        play_forced: bool = False,
    ) -> None:
        cls = game_class(game_name)
        cls.check_num_players(num_players)
        if len(seats) != num_players:
            raise ValueError(f"{len(seats)} seats given for a {num_players}-player game")
        self.id = secrets.token_urlsafe(12)
        self.owner = owner  # the owner token of the browser that started it
        self.watch_id = secrets.token_urlsafe(16)  # the name of its read-only public view
        self.game: Game = make_game(game_name, num_players, seed=seed, **options)
        self.seed = seed
        self.options = dict(options)
        self.seats = [spec.text for spec in seats]
        self.agents = [spec.build(seed + seat) for seat, spec in enumerate(seats)]
        self.handles = [InfoSet(self.game, seat) for seat in range(num_players)]
        self.log: list[Event] = []
        self.error = ""  # a bot that failed stops the match; the page says why
        self.play_forced = play_forced  # a person's only legal choice is played for them
        self.lock = threading.Lock()
        self.touched = 0.0  # set by the store, on its own clock

    # ----- who is who ---------------------------------------------------------------------------
    @property
    def person_seats(self) -> list[int]:
        return [seat for seat, kind in enumerate(self.seats) if kind == PERSON]

    def who(self, seat: int, to_owner: bool = True) -> str:
        """How a page names a seat: by its agent, a person's as "you" to the owner and "person" to a watcher."""
        kind = self.seats[seat]
        return f"seat {seat} ({'you' if kind == PERSON and to_owner else kind})"

    def bot_to_move(self) -> Agent | None:
        """The agent whose turn it is, while the match goes on; None when a person acts (or none does)."""
        if self.game.is_over() or self.error:
            return None
        return self.agents[self.game.current_player()]

    def forced_choice(self) -> int | None:
        """The only legal choice of the person to act, when they asked to have such choices played."""
        if not self.play_forced or self.game.is_over() or self.error:
            return None
        seat = self.game.current_player()
        if self.agents[seat] is not None:
            return None
        legal = self.game.legal_action_ids()
        return legal[0] if len(legal) == 1 else None

    def bots_to_move(self) -> bool:
        """Whether a move is made without the person: a bot's, or a person's forced choice."""
        return self.bot_to_move() is not None or self.forced_choice() is not None

    def viewer(self, wanted: int | None) -> int | None:
        """The seat whose private information the page shows: the person to act, else the person
        asked for, else the first person; None when no person plays (only the public table then)."""
        people = self.person_seats
        current = self.game.current_player()
        if current in people and not self.error:
            return current
        if wanted in people:
            return wanted
        return people[0] if people else None

    # ----- moves --------------------------------------------------------------------------------
    def _apply(self, seat: int, action: int, forced: bool = False) -> None:
        game = self.game
        mark = board_mark(game, action) if 0 <= action < game.num_actions and game.legal_actions()[action] else ""
        step = play_step(self.game, action)  # IllegalActionError before anything changes
        self.log.append(
            Event(step.index, seat, step.public, step.private, step.points, step.outcome, step.payouts, mark, forced)
        )

    def act(self, seat: int, action: int, step: int) -> None:
        """A person's choice, checked: their turn, the page they chose on is the current one, legal."""
        with self.lock:
            game = self.game
            if game.is_over():
                raise ValueError("the game is over")
            if step != len(game.history):
                raise ValueError("that choice was made on an out-of-date page; the game has moved on")
            if seat != game.current_player() or self.agents[seat] is not None:
                raise ValueError(f"it is not seat {seat}'s turn to choose (seat {game.current_player()} acts)")
            self._apply(seat, action)  # IllegalActionError (a ValueError) names what was wrong

    def undoable(self, seat: int) -> bool:
        """Whether `seat`'s last move is an uncommitted part of the decision it is still making: the seat
        moved last and is still choosing, what it chose so far shows (`describe_partial`), and the move
        taught it nothing: made in worlds redrawn from what it could not see (`Game.determinize`), it
        leaves the seat seeing the same (a card drawn would differ), so taking it back gains nothing."""
        game = self.game
        if game.is_over() or self.error or not self.log or self.agents[seat] is not None:
            return False
        if self.log[-1].seat != seat or game.current_player() != seat or not game.describe_partial():
            return False
        before, action = self._before_last(), game.history[-1]
        rng = np.random.default_rng(len(game.history))
        for _ in range(UNDO_SAMPLES):
            twin = before.determinize(seat, rng)
            if not twin.legal_actions()[action]:
                return False
            twin.apply(action)
            if not np.array_equal(twin.observation(seat), game.observation(seat)):
                return False
        return True

    def finishing(self, seat: int) -> set[int]:
        """The legal choices that complete the decision `seat` is making in parts (what it chose so far
        shows, `describe_partial`): after one, the seat has nothing more of it to choose. The page
        previews such a choice before it is played (`preview`)."""
        game = self.game
        if game.is_over() or self.error or game.current_player() != seat or not game.describe_partial():
            return set()
        done = set()
        for action in game.legal_action_ids():
            twin = game.clone()
            twin.apply(action)
            if twin.is_over() or twin.current_player() != seat or not twin.describe_partial():
                done.add(action)
        return done

    def preview(self, seat: int, action: int) -> Game | None:
        """The table after `seat`'s `action`, one of its `finishing` choices, to show before it is played:
        None unless that table is the same, as `seat` sees it, in worlds redrawn from what it cannot see
        (`Game.determinize`), so the preview shows nothing the seat may not know yet."""
        if action not in self.finishing(seat):
            raise ValueError(
                f"choice {action} does not complete the decision being made, so there is nothing to preview"
            )
        after = self.game.clone()
        after.apply(action)
        board = after.render_svg()
        rng = np.random.default_rng(len(self.game.history))
        for _ in range(UNDO_SAMPLES):
            twin = self.game.determinize(seat, rng)
            if not twin.legal_actions()[action]:
                return None
            twin.apply(action)
            if twin.render_svg() != board or not np.array_equal(twin.observation(seat), after.observation(seat)):
                return None
        return after

    def _before_last(self) -> Game:
        return type(self.game).replay(self.game.num_players, self.seed, list(self.game.history[:-1]), **self.options)

    def undo(self, seat: int, step: int) -> None:
        """Take back `seat`'s last move, an uncommitted part of its decision (`undoable`)."""
        with self.lock:
            if step != len(self.game.history):
                raise ValueError("that undo was asked on an out-of-date page; the game has moved on")
            if not self.undoable(seat):
                raise ValueError("nothing to undo: only the parts of a decision still being made can be taken back")
            self.game = self._before_last()
            self.handles = [InfoSet(self.game, other) for other in range(self.game.num_players)]
            self.log.pop()

    def advance(self, budget_seconds: float = 2.0, max_moves: int | None = None) -> None:
        """Let the bots move (and play a person's forced choices, `forced_choice`) until a person must
        choose, the game ends, `max_moves` moves are made, or the time budget is spent (the page then
        asks for more, so a long bot-only match still shows its progress). Each bot move is bounded
        itself (`city_envs.web.seats`), so this returns within the budget plus one move."""
        with self.lock:
            deadline = time.monotonic() + budget_seconds
            moves = 0
            while self.bots_to_move() and time.monotonic() < deadline and (max_moves is None or moves < max_moves):
                seat = self.game.current_player()
                moves += 1
                forced = self.forced_choice()
                if forced is not None:
                    self._apply(seat, forced, forced=True)
                    continue
                bot = self.agents[seat]
                assert bot is not None
                try:
                    action = bot.act(self.handles[seat])
                    self._apply(seat, int(action))
                except Exception as error:  # noqa: BLE001 - a bot's failure is shown, the server goes on
                    self.error = f"{self.who(seat)} failed: {type(error).__name__}: {error}"


@dataclass
class SessionStore:
    """The live matches by id; the least recently used are dropped beyond `capacity`, and any not
    used for `ttl` seconds (by `clock`) is dropped as well."""

    capacity: int = 64
    ttl: float = 6 * 3600.0
    clock: Callable[[], float] = time.monotonic
    sessions: OrderedDict[str, PlaySession] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _expire(self) -> None:
        now = self.clock()
        while self.sessions:
            oldest = next(iter(self.sessions.values()))
            if now - oldest.touched <= self.ttl:
                break
            self.sessions.popitem(last=False)

    def add(self, session: PlaySession) -> None:
        with self.lock:
            session.touched = self.clock()
            self.sessions[session.id] = session
            self._expire()
            while len(self.sessions) > self.capacity:
                self.sessions.popitem(last=False)

    def get(self, session_id: str, owner: str) -> PlaySession:
        """The match `session_id` if `owner` started it; KeyError for a match that is not there or is another's."""
        with self.lock:
            self._expire()
            session = self.sessions.get(session_id)
            if session is None or not owns(owner, session):
                raise KeyError(session_id)
            self.sessions.move_to_end(session_id)
            session.touched = self.clock()
            return session

    def watched(self, watch_id: str) -> PlaySession:
        """The match whose watch link is `watch_id`, else KeyError. Watching does not keep a match alive:
        only its owner's use does."""
        with self.lock:
            self._expire()
            for session in self.sessions.values():
                if secrets.compare_digest(session.watch_id.encode(), watch_id.encode()):
                    return session
            raise KeyError(watch_id)

    def remove(self, session_id: str, owner: str) -> None:
        """Drop the match `session_id` if `owner` started it, else KeyError."""
        with self.lock:
            session = self.sessions.get(session_id)
            if session is None or not owns(owner, session):
                raise KeyError(session_id)
            del self.sessions[session_id]

    def listing(self, owner: str) -> list[PlaySession]:
        """The matches `owner` started, the most recently used first."""
        with self.lock:
            self._expire()
            return [session for session in reversed(self.sessions.values()) if owns(owner, session)]


def owns(owner: str, session: PlaySession) -> bool:
    """Whether the owner token `owner` is the one `session` was started with (compared in constant time)."""
    return bool(owner) and secrets.compare_digest(owner.encode(), session.owner.encode())
