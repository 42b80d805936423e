"""Shared helpers for the Citadels property tests: rules data, invariant checks, random play.

The data below is copied from the rules (the district list and the action table of docs/games/citadels.md), not
imported from the engine, so the checks are an independent recount.
"""

from __future__ import annotations

import numpy as np

from city_envs.citadels.game import Citadels

from ..game_helpers import validate_now

# ----- districts: (name, type, cost, copies); types 0 noble .. 4 unique ----------------
SPEC_DISTRICTS = (
    ("Manor", 0, 3, 5),
    ("Castle", 0, 4, 4),
    ("Palace", 0, 5, 3),
    ("Temple", 1, 1, 3),
    ("Church", 1, 2, 3),
    ("Monastery", 1, 3, 3),
    ("Cathedral", 1, 5, 2),
    ("Tavern", 2, 1, 5),
    ("Market", 2, 2, 4),
    ("Trading Post", 2, 2, 3),
    ("Docks", 2, 3, 3),
    ("Harbor", 2, 4, 3),
    ("Town Hall", 2, 5, 2),
    ("Watchtower", 3, 1, 3),
    ("Prison", 3, 2, 3),
    ("Barracks", 3, 3, 3),
    ("Fortress", 3, 5, 2),
    ("Haunted Quarter", 4, 2, 1),
    ("Keep", 4, 3, 2),
    ("Laboratory", 4, 5, 1),
    ("Smithy", 4, 5, 1),
    ("Observatory", 4, 4, 1),
    ("Graveyard", 4, 5, 1),
    ("Imperial Treasury", 4, 5, 1),
    ("Map Room", 4, 5, 1),
    ("Library", 4, 6, 1),
    ("School of Magic", 4, 6, 1),
    ("Great Wall", 4, 6, 1),
    ("University", 4, 6, 1),
    ("Dragon Gate", 4, 6, 1),
)
NUM_KINDS = 30
SPEC_TYPE = [d[1] for d in SPEC_DISTRICTS]
SPEC_COST = [d[2] for d in SPEC_DISTRICTS]
SPEC_COPIES = np.array([d[3] for d in SPEC_DISTRICTS], dtype=np.int64)
KIND = {d[0]: k for k, d in enumerate(SPEC_DISTRICTS)}
HAUNTED, GRAVEYARD_KIND = KIND["Haunted Quarter"], KIND["Graveyard"]
TREASURY, MAP_ROOM = KIND["Imperial Treasury"], KIND["Map Room"]
PLUS_TWO = (KIND["University"], KIND["Dragon Gate"])
CHARS_PER_SEAT = {2: 2, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1}
ASSASSIN, THIEF, MAGICIAN, WARLORD = 1, 2, 3, 8
INCOME_RANKS = (4, 5, 6, 8)

# ----- the action table: which ids may appear in the mask of each decision kind ---------------
DECISIONS = ("SELECT_CHARACTER", "SELECT_DISCARD", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD")


def _ids(*ranges: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(376, dtype=bool)
    for lo, hi in ranges:
        mask[lo : hi + 1] = True
    return mask


ALLOWED_IDS = {
    "SELECT_CHARACTER": _ids((0, 7)),
    "SELECT_DISCARD": _ids((8, 15)),
    "KEEP_DRAWN": _ids((18, 47)),
    "MAGICIAN_DISCARD": _ids((70, 100)),
    "GRAVEYARD": _ids((374, 375)),
}
_MAIN_COMMON = ((16, 17), (312, 373))  # gather, build, Smithy, Laboratory, end turn
MAIN_IDS_BY_RANK = {rank: _ids(*_MAIN_COMMON) for rank in range(1, 9)}
MAIN_IDS_BY_RANK[ASSASSIN] |= _ids((49, 55))  # 48 (rank 1) never legal
MAIN_IDS_BY_RANK[THIEF] |= _ids((58, 63))  # 56, 57 (ranks 1, 2) never legal
MAIN_IDS_BY_RANK[MAGICIAN] |= _ids((64, 99))
for _rank in INCOME_RANKS:
    MAIN_IDS_BY_RANK[_rank] |= _ids((101, 101))
MAIN_IDS_BY_RANK[WARLORD] |= _ids((102, 311))
BUILD_IDS = _ids((312, 341))


def completion_size(n: int, classic_variant: bool) -> int:
    return 8 if n <= 3 or classic_variant else 7


# ----- invariants -------------------------------------------------------------------------------
# Written for speed (few numpy calls): it runs after every step of thousands of games.
_ALLOWED_SETS = {name: frozenset(np.flatnonzero(ids).tolist()) for name, ids in ALLOWED_IDS.items()}
_MAIN_SETS = {
    (rank, gathered): frozenset(np.flatnonzero(ids if gathered else ids & ~BUILD_IDS).tolist())
    for rank, ids in MAIN_IDS_BY_RANK.items()
    for gathered in (False, True)
}
_PILE_IDS = [[rank - 1 for rank in range(1, 9) if pile >> (rank - 1) & 1] for pile in range(256)]
_HOLDINGS = {n: sorted(list(range(n)) * CHARS_PER_SEAT[n]) for n in CHARS_PER_SEAT}
_COPIES_LIST = SPEC_COPIES.tolist()
_add, _min, _max = np.add.reduce, np.minimum.reduce, np.maximum.reduce


def card_counts(game: Citadels) -> list[int]:
    """Every district card's location, summed per kind (must equal the 68-card multiset)."""
    s = game.state
    counts = _add(s.hands, 0, dtype=np.int64)
    counts += s.cities.sum(axis=0)
    counts = counts.tolist()
    for kind in s.deck:  # a short list: plain Python beats numpy here
        counts[kind] += 1
    for kind in s.drawn + s.marked:
        counts[kind] += 1
    if s.graveyard_card >= 0:
        counts[s.graveyard_card] += 1
    return counts


def check_state(game: Citadels) -> list[int]:
    """Invariants that hold after every step of any reachable (or determinized) state.

    Returns the legal action ids (empty once the game is over) so that callers need not
    compute them again.
    """
    if validate_now(game):  # the product's own check (on a stride of steps: it is costly); then an independent recount
        game.validate()
    s = game.state
    n = game.num_players
    counts = card_counts(game)
    assert counts == _COPIES_LIST, f"cards not conserved: {(np.array(counts) - SPEC_COPIES).tolist()}"
    assert s.hands.shape == (n, NUM_KINDS) and s.cities.shape == (n, NUM_KINDS)
    assert _min(s.hands, None) >= 0, f"negative hand count {s.hands.tolist()}"
    assert min(s.gold) >= 0, f"negative gold {s.gold}"
    # cities are int8: viewed as uint8 a negative entry is >= 128, so this checks "0 or 1"
    assert _max(s.cities.view(np.uint8), None) <= 1, f"a city entry is not 0/1: {s.cities.tolist()}"
    assert s.city_size == _add(s.cities, 1).tolist(), (s.city_size, s.cities.tolist())
    assert 0 <= s.crown < n
    assert s.game_ending == (max(s.city_size) >= s.completion), "game_ending disagrees with city sizes"
    if s.game_ending:
        assert s.city_size[s.first_completer] >= s.completion
    else:
        assert s.first_completer == -1
    mask = game.legal_actions()
    assert mask.shape == (376,) and mask.dtype == bool
    ids = np.flatnonzero(mask).tolist()
    if game.is_over():
        assert game.current_player() == -1 and not ids
        return ids
    decision = game.decision_name()
    assert ids, f"empty mask in {decision}"
    actor = game.current_player()
    assert 0 <= actor < n
    assert not s.drawn or decision == "KEEP_DRAWN"
    assert not s.marked or decision == "MAGICIAN_DISCARD"
    assert s.graveyard_card == -1 or decision == "GRAVEYARD"
    if decision in ("SELECT_CHARACTER", "SELECT_DISCARD"):
        assert s.called == 0
        base = 0 if decision == "SELECT_CHARACTER" else 8
        assert ids == [base + i for i in _PILE_IDS[s.pile]], f"{decision}: mask {ids} is not the pile"
        return ids
    # turn phase: every seat holds its characters, face-up cards are out of play
    held = [rank for rank in range(1, 9) if s.holder[rank] >= 0]
    assert sorted(s.holder[rank] for rank in held) == _HOLDINGS[n], s.holder
    assert not any(s.face_up >> (rank - 1) & 1 for rank in held)
    rank = s.called
    assert 1 <= rank <= 8 and rank != s.killed
    turn_seat = s.holder[rank]
    assert s.revealed[rank] == turn_seat and s.turn_seat == turn_seat
    if decision == "GRAVEYARD":
        assert actor != turn_seat and rank == WARLORD
        assert s.cities[actor, GRAVEYARD_KIND] == 1 and s.gold[actor] >= 1 and s.graveyard_card >= 0
        assert _ALLOWED_SETS[decision].issuperset(ids)
        return ids
    assert actor == turn_seat
    if decision == "MAIN":
        allowed = _MAIN_SETS[rank, s.gathered]
        assert allowed.issuperset(ids), f"MAIN of rank {rank}: {sorted(set(ids) - allowed)}"
    elif decision == "KEEP_DRAWN":
        assert s.drawn and {i - 18 for i in ids} == set(s.drawn)
    else:
        assert decision == "MAGICIAN_DISCARD" and rank == MAGICIAN and s.marked
        assert _ALLOWED_SETS[decision].issuperset(ids)
    return ids


# ----- scoring recount -------------------------------------------------------------------------
def spec_score(game: Citadels, seat: int) -> int:
    s = game.state
    city = np.flatnonzero(s.cities[seat]).tolist()
    total = sum(SPEC_COST[k] for k in city)
    total += 2 * sum(k in city for k in PLUS_TWO)
    types = {SPEC_TYPE[k] for k in city if k != HAUNTED}
    if len(types) == 5 or (HAUNTED in city and len(types) == 4):
        total += 3
    if s.first_completer == seat:
        total += 4
    elif len(city) >= s.completion:
        total += 2
    if TREASURY in city:
        total += s.gold[seat]
    if MAP_ROOM in city:
        total += int(s.hands[seat].sum())
    return total


def spec_winners(game: Citadels) -> list[int]:
    """Highest score; ties to the highest rank revealed (and played) in the final round."""
    scores = [spec_score(game, seat) for seat in range(game.num_players)]
    tied = [seat for seat, x in enumerate(scores) if x == max(scores)]
    revealed = {}
    for event in game.state.events:
        if event[0] == "reveal":
            _, seat, rank = event
            revealed[seat] = max(revealed.get(seat, 0), rank)
    best = max(revealed.get(seat, 0) for seat in tied)
    return [seat for seat in tied if revealed.get(seat, 0) == best]


def spec_returns(n: int, winners: list[int]) -> list[float]:
    if len(winners) == n:
        return [0.0] * n
    return [1.0 / len(winners) if seat in winners else -1.0 / (n - len(winners)) for seat in range(n)]


# ----- random play ------------------------------------------------------------------------------
def random_action(game: Citadels, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(game.legal_actions())
    return int(legal[rng.integers(len(legal))])


def play_out(game: Citadels, rng: np.random.Generator, check: bool = False, limit: int = 20_000) -> Citadels:
    """Random legal moves to the end (optionally checking every state on the way)."""
    for _ in range(limit):
        ids = check_state(game) if check else np.flatnonzero(game.legal_actions()).tolist()
        if game.is_over():
            return game
        game.apply(ids[rng.integers(len(ids))])
    raise AssertionError(f"game did not end within {limit} decisions")


def harvest(n: int, seeds, per_game: int = 2, classic_variant: bool = False) -> list[Citadels]:
    """Clones of random mid-game states: `per_game` uniformly random steps of each random game,
    plus one random occurrence of every decision kind the game went through (so SELECT_DISCARD,
    KEEP_DRAWN, MAGICIAN_DISCARD and GRAVEYARD states are included whenever they happened)."""
    states = []
    for seed in seeds:
        game = Citadels(n, seed=seed, classic_variant=classic_variant)
        rng = np.random.default_rng(10_000 + seed)
        kinds: dict[str, list[int]] = {}
        while not game.is_over():
            kinds.setdefault(game.decision_name(), []).append(len(game.history))
            game.apply(random_action(game, rng))
        stops = set(rng.integers(len(game.history), size=per_game).tolist())
        stops.update(steps[rng.integers(len(steps))] for steps in kinds.values())
        replay = Citadels(n, seed=seed, classic_variant=classic_variant)
        for step, action in enumerate(game.history):
            if step in stops:
                states.append(replay.clone())
            replay.apply(action)
    return states


def harvest_kind(n: int, decision: str, count: int, seed0: int = 0, max_games: int = 2000) -> list[Citadels]:
    """Up to `count` states (one per random game) whose pending decision is `decision`."""
    states = []
    for seed in range(seed0, seed0 + max_games):
        game = Citadels(n, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            if game.decision_name() == decision:
                states.append(game.clone())
                break
            game.apply(random_action(game, rng))
        if len(states) == count:
            break
    return states


def mid_game_states(n: int, classic_variant: bool = False) -> list[Citadels]:
    """Random positions of four games, and a GRAVEYARD decision (rare) unless in the classic variant."""
    states = harvest(n, range(40 * n, 40 * n + 4), per_game=2, classic_variant=classic_variant)
    if not classic_variant:
        states += harvest_kind(n, "GRAVEYARD", 1, seed0=900)
    return states
