"""A native match presents itself as the Python engine's match at the same position: the decision in
words, the legend, the reasons for missing choices, the panels' resources and score parts, and the
game's texts (the web app reads these of whichever engine plays)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.native.parity import native_games, pair

pytestmark = pytest.mark.skipif(not native_games(), reason="the native engine is not built")


def presented(game, seats: int) -> dict:
    return {
        "words": game.decision_words(),
        "legend": [game.legend([seat]) for seat in range(seats)] + [game.legend(range(seats))],
        "missing": [game.missing_choices(seat) for seat in range(seats)],
        "resources": game.public_resources(),
        "parts": game.public_score_parts(),
    }


@pytest.mark.parametrize("name", native_games())
def test_a_native_match_presents_itself_as_the_python_engines(name):
    python, native = pair(name, 3, seed=4)
    assert type(native).rules_summary() == type(python).rules_summary() != ""
    assert type(native).decision_texts() == type(python).decision_texts() != {}
    assert type(native).card_texts() == type(python).card_texts() != {}
    chooser = np.random.default_rng(4)
    compared = reasons = 0
    while len(python.history) < 600:
        if len(python.history) % 3 == 0 or python.is_over():
            seen = presented(python, 3)
            assert presented(native, 3) == seen, (name, len(python.history))
            compared += 1
            reasons += sum(map(len, seen["missing"]))
        if python.is_over():
            break
        action = int(chooser.choice(np.flatnonzero(python.legal_actions())))
        python.apply(action)
        native.apply(action)
    assert compared >= 10 and reasons > 0
