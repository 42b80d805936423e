"""Every text a person reads about the actions (the choices, what the table sees, what a move
revealed, a choice under way) reads as a sentence, in every game at every player count, over random
matches: no code names, "an" before a vowel, and a payment always said the same way. "for N gold"
(or wealth, prestige, crystals) is what the seat pays, after a verb of paying (buy, place, offer ...);
"gain N", "take N" and "collect N" are what it receives, and a move that only receives never lowers
the seat's holding."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import numpy as np
import pytest

import city_envs
from city_envs.core.game import Game

MATCHES = 2  # per game and player count (the default suite: each game at its smallest); `-m slow` plays more
SLOW_MATCHES = 20
RESOURCES = r"(gold|wealth|prestige|crystals)"
PAID = re.compile(rf"\bfor (\d+) {RESOURCES}\b(?! for each)")
PAYING_VERBS = ("pay", "pays", "buy", "buys", "place", "places", "offer", "offers", "bid", "bids", "build", "builds")
RECEIVED = re.compile(rf"\b(?:gain|gains|take|takes|collect|collects) (\d+) {RESOURCES}\b(?! for each)")
PAYMENT = re.compile(rf"{PAID.pattern}|\bpays?\b|\bin {RESOURCES}\b")  # what a seat pays, however said
BARE_AMOUNT = re.compile(rf"\(\d+ {RESOURCES}\)")  # "(3 gold)": paid or received?
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b[A-Z]+_[A-Z0-9_]+\b")
A_BEFORE_VOWEL = re.compile(r"\b[Aa] (?!one\b|uni|use|eu)[aeiouAEIOU]")
# the seat's holdings of each resource, where the game has them
HOLDINGS: dict[str, dict[str, Callable[[Game, int], int]]] = {
    "citadels": {"gold": lambda game, seat: game.state.gold[seat]},
    "blue_moon_city": {"crystals": lambda game, seat: game.state.crystals[seat]},
    "urban_sprawl": {
        "wealth": lambda game, seat: game.state.wealth[seat],
        "prestige": lambda game, seat: game.state.prestige[seat],
    },
}


def games_and_counts() -> Iterator[tuple[str, int]]:
    for name in city_envs.GAMES:
        cls = city_envs.game_class(name)
        for count in range(cls.min_players, cls.max_players + 1):
            yield name, count


def smallest_count_first() -> Iterator[object]:
    """Every game and player count, the counts above each game's smallest behind `slow`."""
    for name, count in games_and_counts():
        smallest = count == city_envs.game_class(name).min_players
        yield pytest.param(name, count, marks=() if smallest else pytest.mark.slow)


def read_matches(name: str, count: int, matches: int) -> tuple[dict[str, str], set[str], list[str]]:
    """Random matches: every text shown (with where it was seen), the decision names met, and the
    payment texts whose move went the other way."""
    texts: dict[str, str] = {}
    decisions: set[str] = set()
    wrong_way: list[str] = []
    holdings = HOLDINGS.get(name, {})
    for seed in range(matches):
        game = city_envs.make_game(name, count, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            decisions.add(game.decision_name())
            where = f"{name} {count}p seed {seed} step {len(game.history)} ({game.decision_name()})"
            legal = game.legal_action_ids()
            for action in legal:
                texts.setdefault(game.describe_action(action), where)
            texts.setdefault(game.describe_partial(), where)
            action = int(rng.choice(legal))
            seat, text, before = game.current_player(), game.describe_action(action), game.clone()
            texts.setdefault(game.describe_public_action(action), where)
            held = {resource: amount(game, seat) for resource, amount in holdings.items()}
            game.apply(action)
            for line in game.describe_outcome(before):
                texts.setdefault(line, where)
            for match in [] if PAYMENT.search(text) else RECEIVED.finditer(text):  # a gain alone
                resource = match.group(2)
                if resource in held and holdings[resource](game, seat) < held[resource]:
                    wrong_way.append(
                        f"{text!r} at {where}: {resource} {held[resource]} -> {holdings[resource](game, seat)}"
                    )
    texts.pop("", None)
    return texts, decisions, wrong_way


def paid_without_a_paying_verb(text: str) -> bool:
    """A "for N gold" whose clause (between colons and semicolons) starts with no verb of paying."""
    return any(PAID.search(clause) and clause.split()[0] not in PAYING_VERBS for clause in re.split(r"[:;] ", text))


def check(name: str, count: int, matches: int) -> None:
    texts, decisions, wrong_way = read_matches(name, count, matches)
    code_names = re.compile(r"\b(" + "|".join(sorted(decisions, key=len, reverse=True)) + r")\b")
    problems = [
        f"{label}: {text!r} at {where}"
        for text, where in texts.items()
        for label, pattern in (
            ("a code name", SNAKE_CASE),
            ("a decision's code name", code_names),
            ("'a' before a vowel", A_BEFORE_VOWEL),
        )
        if pattern.search(text)
    ]
    problems += [
        f"'for N' after no verb of paying: {text!r} at {where}"
        for text, where in texts.items()
        if paid_without_a_paying_verb(text)
    ]
    problems += [
        f"an amount without its direction: {text!r} at {where}"
        for text, where in texts.items()
        if BARE_AMOUNT.search(text)
    ]
    problems += [f"received the other way: {line}" for line in wrong_way]
    assert not problems, "\n".join(problems[:30])


@pytest.mark.parametrize(("name", "count"), list(smallest_count_first()))
def test_every_action_text_reads_as_a_sentence(name, count):
    check(name, count, MATCHES)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "count"), list(games_and_counts()))
def test_every_action_text_reads_as_a_sentence_over_many_matches(name, count):
    check(name, count, SLOW_MATCHES)


def test_the_checks_catch_the_slips_they_are_for():
    assert A_BEFORE_VOWEL.search("bid, with a archaeological token") and not A_BEFORE_VOWEL.search("a one-off")
    assert SNAKE_CASE.search("exchange_select") and SNAKE_CASE.search("EXCHANGE_SELECT")
    assert PAID.search("buy it for 4 wealth") and not PAID.search("gain 1 wealth for each park")
    assert paid_without_a_paying_verb("invest P12 permit 3 COM for 7 wealth")
    assert not paid_without_a_paying_verb("discard yellow 1: offer again for 5 crystals")
    assert RECEIVED.search("invest P12: gain 7 wealth") and BARE_AMOUNT.search("collect income (3 gold)")
