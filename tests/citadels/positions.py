"""Build Citadels positions for rule tests: write a situation into a fresh game's state.

Used by the worked examples and the per-rule tests; every action afterwards goes through
`Game.apply`.
"""

from __future__ import annotations

from city_envs.citadels import rules
from city_envs.citadels.game import Citadels
from city_envs.citadels.rules import bit

from .helpers import KIND

ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD = range(1, 9)
FILLER = KIND["Manor"]


def kinds(*names: str) -> list[int]:
    return [KIND[name] for name in names]


def hand_of(game: Citadels, seat: int) -> dict[str, int]:
    names = {k: name for name, k in KIND.items()}
    return {names[k]: int(c) for k, c in enumerate(game.state.hands[seat]) if c}


def position(
    n: int,
    *,
    cities: dict[int, list[int]] | None = None,
    hands: dict[int, list[int]] | None = None,
    gold: dict[int, int] | None = None,
    deck: list[int] | int = 30,
    crown: int = 0,
) -> Citadels:
    """A game whose seats have exactly the given cities, hands and gold (others empty / 0)."""
    game = Citadels(n, seed=0)
    s = game.state
    s.cities[:] = 0
    s.hands[:] = 0
    for seat, city in (cities or {}).items():
        s.cities[seat, city] = 1
    s.city_size = [int(s.cities[seat].sum()) for seat in range(n)]
    for seat, hand in (hands or {}).items():
        for kind in hand:
            s.hands[seat, kind] += 1
    s.gold = [(gold or {}).get(seat, 0) for seat in range(n)]
    s.deck = [FILLER] * deck if isinstance(deck, int) else list(deck)
    s.crown = crown
    game._mask = None
    return game


def start_turns(
    game: Citadels,
    holders: dict[int, int],
    *,
    face_up: tuple[int, ...] = (),
    facedown: int = 0,
    called: int = 0,
    killed: int = 0,
    robbed: int = 0,
    revealed: dict[int, int] | None = None,
) -> None:
    """End the selection with `holders` (rank -> seat) and call ranks after `called`."""
    s = game.state
    s.holder = [-1] * 9
    for rank, seat in holders.items():
        s.holder[rank] = seat
    s.face_up = sum(bit(r) for r in face_up)
    s.facedown = facedown
    s.pile = 0
    s.step = len(s.steps)
    s.called, s.killed, s.robbed = called, killed, robbed
    s.revealed = [-1] * 9
    s.played = [False] * s.n
    for rank, seat in (revealed or {}).items():
        s.revealed[rank] = seat
        s.played[seat] = True
    rules._call_next_rank(s, game.chance)
    game._mask = None
