"""Live matches played through the web app: a person (or several) against bots, one lock per match.

A `PlaySession` owns one `Game`, the agents of its bot seats and an event log. Every change goes
through `act` (a person's choice) or `advance` (the bots' moves), each under the session's lock,
so two browser tabs on one match cannot interleave, and two matches never share anything mutable.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib.util import find_spec

from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import game_class, make_game

PERSON = "person"
PPO_FLAGS = ("sample", "trust_pickle")  # the parts of a ppo spec that are not a model path
BOT_SUGGESTIONS = ("random", "heuristic", "ismcts:iters=50", "ismcts:iters=200", "ppo", "ppo:sample")


@dataclass(frozen=True)
class Event:
    """One applied decision, as the table saw it (`public`) and as its own seat did (`private`)."""

    step: int
    seat: int
    who: str
    public: str
    private: str
    points: tuple[float, ...]  # each seat's change of score by this decision
    outcome: tuple[str, ...] = ()  # what the table learnt from it (`Game.describe_outcome`), public


def check_seat_kind(kind: str, game_name: str, num_players: int) -> None:
    """Reject an agent spec now, with the reason, rather than at its first move."""
    from city_envs.agents.registry import make_agent

    if kind == PERSON:
        return
    name = kind.partition(":")[0]
    if name == "ppo":
        if find_spec("sb3_contrib") is None or find_spec("torch") is None:
            raise ValueError("the ppo agent needs the train extra: pip install 'city-envs[train]'")
        if all(part in PPO_FLAGS for part in kind.split(":")[1:] if part):  # no path: the committed baseline
            from city_envs.agents.policy_agent import baseline_path

            if not baseline_path(game_name, num_players).is_file():
                raise ValueError(f"no committed PPO baseline for {game_name} at {num_players} players; "
                                 "give a model with ppo:PATH or choose another agent")
    make_agent(kind, game_name, 0)  # raises ValueError for an unknown kind or bad parameters


class PlaySession:
    """One match in progress in the web app."""

    def __init__(self, game_name: str, num_players: int, seats: list[str], seed: int, options: dict) -> None:
        from city_envs.agents.registry import make_agent

        cls = game_class(game_name)
        cls.check_num_players(num_players)
        if len(seats) != num_players:
            raise ValueError(f"{len(seats)} seats given for a {num_players}-player game")
        for kind in seats:
            check_seat_kind(kind, game_name, num_players)
        self.id = secrets.token_urlsafe(9)
        self.game: Game = make_game(game_name, num_players, seed=seed, **options)
        self.seed = seed
        self.seats = list(seats)
        self.agents = [None if kind == PERSON else make_agent(kind, game_name, seed + seat)
                       for seat, kind in enumerate(seats)]
        self.handles = [InfoSet(self.game, seat) for seat in range(num_players)]
        self.log: list[Event] = []
        self.error = ""  # a bot that failed stops the match; the page says why
        self.lock = threading.Lock()
        self.touched = time.monotonic()

    # ----- who is who ---------------------------------------------------------------------------
    @property
    def person_seats(self) -> list[int]:
        return [seat for seat, kind in enumerate(self.seats) if kind == PERSON]

    def who(self, seat: int) -> str:
        return f"seat {seat} ({'you' if self.seats[seat] == PERSON else self.seats[seat]})"

    def bots_to_move(self) -> bool:
        return not self.game.is_over() and not self.error and self.agents[self.game.current_player()] is not None

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
    def _apply(self, seat: int, action: int) -> None:
        game = self.game
        public, private = game.describe_public_action(action), game.describe_action(action)
        before = game.clone()
        game.apply(action)
        points = tuple(float(a - b) for a, b in zip(game.scores(), before.scores(), strict=True))
        self.log.append(Event(len(game.history) - 1, seat, self.who(seat), public, private, points,
                              tuple(game.describe_outcome(before))))

    def act(self, seat: int, action: int, step: int) -> None:
        """A person's choice, checked: their turn, the page they chose on is the current one, legal."""
        with self.lock:
            self.touched = time.monotonic()
            game = self.game
            if game.is_over():
                raise ValueError("the game is over")
            if step != len(game.history):
                raise ValueError("that choice was made on an out-of-date page; the game has moved on")
            if seat != game.current_player() or self.agents[seat] is not None:
                raise ValueError(f"it is not seat {seat}'s turn to choose (seat {game.current_player()} acts)")
            self._apply(seat, action)  # IllegalActionError (a ValueError) names what was wrong

    def advance(self, budget_seconds: float = 2.0) -> None:
        """Let the bots move until a person must choose, the game ends, or the time budget is spent
        (the page then asks for more, so a long bot-only match still shows its progress)."""
        with self.lock:
            self.touched = time.monotonic()
            deadline = time.monotonic() + budget_seconds
            while self.bots_to_move() and time.monotonic() < deadline:
                seat = self.game.current_player()
                try:
                    action = self.agents[seat].act(self.handles[seat])
                    self._apply(seat, action)
                except Exception as error:  # noqa: BLE001 - a bot's failure is shown, the server goes on
                    self.error = f"{self.who(seat)} failed: {type(error).__name__}: {error}"


@dataclass
class SessionStore:
    """The live matches by id; the least recently used are dropped beyond `capacity`."""

    capacity: int = 64
    sessions: OrderedDict[str, PlaySession] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, session: PlaySession) -> None:
        with self.lock:
            self.sessions[session.id] = session
            while len(self.sessions) > self.capacity:
                self.sessions.popitem(last=False)

    def get(self, session_id: str) -> PlaySession:
        with self.lock:
            if session_id not in self.sessions:
                raise KeyError(session_id)
            self.sessions.move_to_end(session_id)
            return self.sessions[session_id]

    def listing(self) -> list[PlaySession]:
        with self.lock:
            return list(reversed(self.sessions.values()))
