"""The choices of a turn: a forced one is played by the page itself, no list of any decision of any game
holds more than the limit of buttons, Big City's trams are chosen by street group and its new
neighbourhood is previewed before it is placed."""

from __future__ import annotations

import random

from .test_app import start
from .test_ownership import session_for


def test_a_forced_choice_is_played_by_the_page_not_offered_as_a_button(client):
    url = start(client, "urban_sprawl", ["person", "random"], seed=2, play_forced="on")
    session = session_for(client, url)
    pick = random.Random(2).choice
    for _ in range(200):
        if session.forced_choice() is not None:
            break
        if session.bot_to_move() is not None:
            session.advance(max_moves=1)
        else:
            session.act(0, pick(session.game.legal_action_ids()), len(session.game.history))
    assert session.forced_choice() is not None
    page = client.get(url).text
    assert 'data-bots-to-move="1"' in page and 'id="advance"' in page and 'id="actions"' not in page
    client.post(f"{url}/advance?moves=1")
    assert session.log[-1].forced and session.log[-1].seat == 0
