"""Urban Sprawl for people, beyond what every game shows alike (tests/test_every_game.py): the text
shows the (public) hands, the offices and the pending decision."""

from __future__ import annotations

from .helpers import bought


def test_text_shows_hands_offices_and_the_pending_decision():
    game = bought(4)
    s = game.state
    s.offices[0] = 2
    text = game.render_text()
    for seat in range(4):
        assert all(f"P{c:02d}" in text for c in s.hands[seat])
    assert "offices Mayor" in text and "pending INVEST for seat 0" in text
