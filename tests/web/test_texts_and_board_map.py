"""What a person reads and clicks: moves, their consequences and partial choices in plain words, public
texts that hide what is hidden, and the clickable regions of each board image."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from city_envs import make_game
from city_envs.core.registry import GAMES

from .test_app import choices, start, step_of, text_of

CODE_WORD = re.compile(r"\b[A-Z]{2,}_[A-Z_]+\b|\(w=|p=\d")  # PER_BUILDING, ACTIVE_ALL, w=1 ...


def first_state(name: str, players: int, seed: int, decision: str, steps: int = 3000):
    """The first state of a random match whose pending decision is `decision`."""
    for game in random_states(name, players, seed, steps):
        if game.decision_name() == decision:
            return game
    raise AssertionError(f"no {decision} within {steps} decisions")


def random_states(name: str, players: int, seed: int, steps: int):
    """The states of one random match, one per decision (the same game object, moved on)."""
    game = make_game(name, players, seed=seed)
    pick = random.Random(seed).choice
    for _ in range(steps):
        if game.is_over():
            return
        yield game
        game.apply(pick(game.legal_action_ids()))


# ----- Big City: placing a neighbourhood tile ------------------------------------------------------
def test_big_city_tile_placement_reads_as_where_the_tile_goes_and_is_true():
    from city_envs.big_city import components as cp
    from city_envs.big_city import rules as r

    game = make_game("big_city", 3, seed=1)
    assert game.decision_name() == "SETUP_TILE"
    texts = [game.describe_action(a) for a in game.legal_action_ids()]
    assert "place neighbourhood 2 (Downtown, 4 x 2 plots, 21-28)" in texts
    game.apply(r.TILE + 3)
    assert game.describe_partial() == "placing neighbourhood 3 (3 x 3 plots, 31-39)"
    assert game.describe_action(r.ROTATION + 0) == "lay it as printed: 3 wide x 3 high, plot 31 top left"
    assert game.describe_action(r.ROTATION + 1) == (
        "lay it turned a quarter turn clockwise: 3 wide x 3 high, plot 37 top left"
    )
    game.apply(r.ROTATION + 1)
    assert "plot 37 top left" in game.describe_partial()
    edge = game.legal_action_ids()[0]
    q, side = divmod(edge - r.EDGE, 4)
    where = ("above", "right of", "below", "left of")[side]
    assert game.describe_action(edge) == f"put it {where} plot {cp.PLOT_NUMBER[q]}"
    game.apply(edge)
    assert game.describe_partial().endswith(f"; {where} plot {cp.PLOT_NUMBER[q]}")
    cell = game.legal_action_ids()[0]
    number = 30 + cell - r.LOCAL_CELL + 1
    assert game.describe_action(cell) == f"its plot {number} lands {where} plot {cp.PLOT_NUMBER[q]}"
    game.apply(cell)
    s = game.state
    new = cp.plot_index(number)
    dx, dy = cp.DIRS[side]
    assert (s.px[new], s.py[new]) == (s.px[q] + dx, s.py[q] + dy)  # the text told the truth
    assert game.describe_partial() == ""


def test_big_city_building_and_trams_name_plots_and_streets():
    seen = set()
    for game in random_states("big_city", 3, 1, 1500):
        decision = game.decision_name()
        action = game.legal_action_ids()[-1]
        if decision in ("BUILD_SELECT", "PIECE_SELECT"):
            assert re.fullmatch(r".+ on plot \d\d( \(completes it\))?", game.describe_action(action))
            assert " on " in game.describe_partial()
            seen.add(decision)
        elif decision in ("TRAM_EDGE", "TRAM_EDGE_OPT"):
            assert re.fullmatch(
                r"tram on the street (between plots \d\d and \d\d|(above|below|right of|left of)"
                r" plot \d\d)",
                game.describe_action(action),
            )
            seen.add("TRAM")
    assert {"BUILD_SELECT", "TRAM"} <= seen


# ----- Urban Sprawl: card effects as sentences, prices in the menus --------------------------------
def test_every_urban_sprawl_effect_template_reads_as_a_sentence():
    from city_envs.urban_sprawl import components as cp
    from city_envs.urban_sprawl.render import contract_details, effect_text, restriction_text

    def as_effect(*row):
        """A component table's effect row as its record (the template id comes first)."""
        return cp.EFFECT_TYPES[row[0]](*row)

    templates = {}
    for effects in cp.CONTRACT_EFFECTS:
        for effect in effects:
            templates.setdefault(effect[0], []).append(effect)
    assert set(templates) == set(range(len(cp.EFFECT_NAMES)))  # the data uses every template
    for rows in templates.values():
        for effect in rows:
            text = effect_text(effect)
            assert not CODE_WORD.search(text) and text == text.strip() and text[0].islower(), text
    assert effect_text(as_effect(cp.PER_BUILDING, cp.ACTIVE_ALL, 1, 0, (cp.IND,), 0, cp.ADJACENT)) == (
        "you gain 1 wealth for each industrial building (anyone's) adjacent to the new building"
    )
    assert effect_text(as_effect(cp.PER_BUILDING, cp.EACH_OWN, 3, 0, (cp.COM,), 3, cp.CITY_SCOPE)) == (
        "every player gains 3 wealth for each of their own commercial 3-lot buildings in the city"
    )
    assert effect_text(as_effect(cp.PER_BUILDING, cp.ACTIVE_OWN, 0, 1, (cp.CIV, cp.RES), 0, cp.THESE_ROWS)) == (
        "you gain 1 prestige for each of your civic or residential buildings in the new building's block row or column"
    )
    assert effect_text(as_effect(cp.GAIN, 2, 3)) == "you gain 2 wealth and 3 prestige"
    assert effect_text(as_effect(cp.TRIBUTE, 4, (cp.RES,), 0)) == (
        "every other player pays you 4 wealth or prestige for each residential building they control"
    )
    assert effect_text(as_effect(cp.MARKER, 9)) == "you put marker 9 on a grey circle"
    assert effect_text(as_effect(cp.PARK_EFFECT, 2)) == "you place 2 parks next to it"
    restrictions = {restriction for restriction in cp.CONTRACT_RESTRICTION if restriction is not None}
    assert {kind for kind, _ in restrictions} == set(range(len(cp.RESTRICTION_NAMES)))
    for restriction in restrictions:
        assert not CODE_WORD.search(restriction_text(restriction))
    assert restriction_text((cp.NOT_ADJ, cp.RES)) == "not next to a residential building"
    assert restriction_text((cp.MIN_VALUE, 6)) == "only on a block worth at least 6"
    for card in range(cp.NUM_CONTRACTS):
        assert not CODE_WORD.search(contract_details(card))


def test_urban_sprawl_menus_show_every_price():
    from city_envs.urban_sprawl import components as cp
    from city_envs.urban_sprawl import rules as r

    found = set()
    for game in random_states("urban_sprawl", 3, 2, 1500):
        s = game.state
        for action in game.legal_action_ids():
            text = game.describe_action(action)
            if game.decision_name() == "START_BUY":
                assert text.endswith(f" for {r.block_value(s, (action - r.LOT) // 4)} wealth"), text
                found.add("buy")
            elif r.TAKE_PLANNING <= action < r.BUILD:
                assert text.endswith(f"for {cp.PLANNING_AP[action - r.TAKE_PLANNING]} AP"), text
                found.add("planning")
            elif r.BUILD <= action < r.TAKE_FAVOR:
                space = action - r.BUILD
                size = cp.CONTRACT_SIZE[r.contract_at(s, space)]
                assert f"for {cp.CONTRACT_AP[space]} AP, {size} permit" in text and "value in wealth" in text
                found.add("build")
            elif r.TAKE_FAVOR <= action < r.BUILD_FAVOR:
                assert f"as a Favor for {cp.CONTRACT_AP[action - r.TAKE_FAVOR]} AP" in text
            elif game.decision_name() == "PLACE":
                assert text.endswith(f" for {r.block_value(s, (action - r.LOT) // 4)} wealth"), text
                found.add("place")
            elif game.decision_name() == "INVEST":
                assert action == r.PASS or text.endswith(f": gain {cp.INVESTMENT[action]} wealth")
            elif game.decision_name() in ("AUCTION", "TRIBUTE_PAY", "VOC_PAYOUT") and action == r.OPT_A:
                assert re.search(r"\d+ wealth", text), text
                found.add(game.decision_name())
    assert {"buy", "planning", "build", "place", "VOC_PAYOUT"} <= found


# ----- Citadels: what the table learns after a move --------------------------------------------------
def test_citadels_log_reveals_the_thief_takings_and_the_assassins_victim():
    seen = set()
    for seed in range(6):
        game = make_game("citadels", 4, seed=seed)
        pick = random.Random(seed).choice
        while not game.is_over() and len(seen) < 4:
            before = game.clone()
            game.apply(pick(game.legal_action_ids()))
            for text in game.describe_outcome(before):
                s = game.state
                if match := re.fullmatch(r"seat (\d) reveals the (\w+) \((\d)\)( and .*)?", text):
                    seat, rank = int(match[1]), int(match[3])
                    assert s.revealed[rank] == seat or s.round != before.state.round
                    seen.add("reveal")
                elif match := re.fullmatch(r"the Thief \(seat (\d)\) takes (\d+) gold from seat (\d)", text):
                    thief, gold, victim = map(int, match.groups())
                    assert before.state.gold[victim] == gold and s.gold[victim] == 0
                    assert s.holder[2] == thief
                    seen.add("thief")
                elif re.fullmatch(r"the \w+ \(\d\) was assassinated and loses its turn", text):
                    seen.add("assassin")
                else:
                    assert re.fullmatch(r"round \d+ begins; seat \d holds the crown.*", text), text
                    seen.add("round")
    assert seen == {"reveal", "thief", "assassin", "round"}


def test_the_web_log_shows_the_revealed_characters(client):
    url = start(client, "citadels", ["random", "random", "person"], seed=2)
    for _ in range(30):
        page = client.get(url).text
        if "reveals the" in page:
            break
        if 'data-bots-to-move="1"' in page:
            client.post(f"{url}/advance")
        else:
            client.post(f"{url}/act", data={"seat": "2", "action": str(choices(page)[0]), "step": str(step_of(page))})
    assert re.search(r"→ seat \d reveals the \w+ \(\d\)", text_of(page))


# ----- public texts hide what is hidden --------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_public_texts_do_not_change_with_hidden_information(name):
    """An action's public text is the same in every world the other seats cannot tell from this one."""
    rng = np.random.default_rng(0)
    compared = 0
    for index, game in enumerate(random_states(name, 3, 11, 400)):
        if index % 7:
            continue
        actor = game.current_player()
        for observer in range(game.num_players):
            if observer == actor:
                continue
            twin = game.determinize(observer, rng)
            if twin.current_player() != actor or twin.decision_name() != game.decision_name():
                continue
            for action in set(game.legal_action_ids()) & set(twin.legal_action_ids()):
                assert game.describe_public_action(action) == twin.describe_public_action(action), (
                    game.decision_name(),
                    action,
                )
                compared += 1
    assert compared > 50


def test_a_hand_never_shows_in_public_texts():
    from city_envs.citadels import rules as r

    game = make_game("citadels", 3, seed=4)
    pick = random.Random(4).choice
    while game.decision_name() != "KEEP_DRAWN":
        game.apply(pick(game.legal_action_ids()))
    publics = {game.describe_public_action(a) for a in game.legal_action_ids()}
    privates = {game.describe_action(a) for a in game.legal_action_ids()}
    assert len(publics) == 1 and not publics & privates  # which card is kept stays secret
    assert all(a >= r.KEEP_DRAWN for a in game.legal_action_ids())


# ----- clickable board regions ----------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_board_regions_are_legal_inside_the_image_and_found_in_play(name):
    found = 0
    size_checked = False
    for game in random_states(name, 3, 1, 600):
        board = game.board_map()
        legal = set(game.legal_action_ids())
        actions = [region.action for region in board.regions]
        assert len(actions) == len(set(actions)) and set(actions) <= legal
        for region in board.regions:
            left, top, right, bottom = region.bounds()
            assert 0 <= left < right <= board.width and 0 <= top < bottom <= board.height
        found += bool(board.regions)
        if board.regions and not size_checked:
            assert game.render_image().shape == (board.height, board.width, 3)
            size_checked = True
    assert found >= 5, f"{name}: only {found} states with clickable regions"


def _pixel(image: np.ndarray, x: float, y: float) -> str:
    red, green, blue = image[int(y), int(x)]
    return f"#{red:02x}{green:02x}{blue:02x}"


def _centre(region) -> tuple[float, float]:
    left, top, right, bottom = region.bounds()
    return (left + right) / 2, (top + bottom) / 2


def test_metropolys_regions_lie_on_their_neighbourhood_discs():
    from city_envs.metropolys import components as cp
    from city_envs.metropolys.image import NBHD_COLOURS

    game = make_game("metropolys", 3, seed=1)
    board, image = game.board_map(), game.render_image()
    assert len(board.regions) == int(game.legal_actions()[: cp.NUM_NBHDS].sum()) > 30
    for region in board.regions:
        x, y = _centre(region)
        disc = NBHD_COLOURS[cp.COLOUR[region.action]]
        assert any(_pixel(image, x + dx, y + dy) == disc for dx in (-6, 6) for dy in (-6, 6)), region.action


def test_urban_sprawl_regions_hit_the_lots_and_circles_drawn():
    from city_envs.urban_sprawl import rules as r

    game = first_state("urban_sprawl", 3, 2, "MARKER_PLACE")
    board, image = game.board_map(), game.render_image()
    assert {region.action for region in board.regions} == {a for a in game.legal_action_ids() if a >= r.CIRCLE}
    for region in board.regions:
        assert _pixel(image, *_centre(region)) == "#bfc9ca"  # an empty grey circle
    game = make_game("urban_sprawl", 3, seed=2)  # START_BUY: the starting buildings' lots
    board = game.board_map()
    s = game.state
    for region in board.regions:
        assert s.lot_building[region.action - r.LOT] >= 0 and region.contains(*_centre(region))


def test_the_play_page_makes_the_legal_neighbourhoods_clickable(client):
    url = start(client, "metropolys", ["person", "random"], seed=1)
    page = client.get(url).text
    places = re.findall(r'<g class="choice" data-action="(\d+)"[^>]*><title>([^<]+)</title>', page)
    buttons = dict(
        (int(a), text)
        for a, text in re.findall(
            r'<button name="action" value="(\d+)" class="action[^"]*"[^>]*>([^<]+)</button>', page
        )
    )
    assert len(places) > 30 and 'viewBox="0 0 1000 ' in page
    for action, title in places:
        assert buttons[int(action)] == title
    action = int(places[0][0])
    response = client.post(f"{url}/act", data={"seat": "0", "action": str(action), "step": str(step_of(page))})
    assert response.status_code == 200
    page = client.get(url).text
    assert "So far: bidding on neighbourhood" in text_of(page) and 'class="choice"' not in page


# ----- the banner: each decision in words ------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_every_decision_is_named_in_words_not_by_its_code_name(name):
    import importlib

    from city_envs.web.decisions import DECISION_WORDS, decision_words

    decision = importlib.import_module(f"city_envs.{name}.rules").Decision
    assert set(DECISION_WORDS[name]) == set(range(len(decision.names)))
    assert not any(CODE_WORD.search(words) or words.upper() == words for words in DECISION_WORDS[name].values())
    game = make_game(name, 2, seed=0)
    assert decision_words(game) == DECISION_WORDS[name][decision.names.index(game.decision_name())]


def test_urban_sprawl_lists_ending_the_turn_after_the_choices_it_ends():
    """Presentation only: the pass keeps its id (36, before the takes and builds) and is listed last."""
    from city_envs.urban_sprawl import rules as r
    from city_envs.web.app import group_actions

    game = first_state("urban_sprawl", 2, 0, "MAIN")
    ids = game.legal_action_ids()
    assert ids[0] == r.PASS == 36
    shown = game.presentation_order(ids)
    assert sorted(shown) == ids and shown[-1] == r.PASS
    headings = [heading for heading, _ in group_actions(game, shown)]
    assert headings[0] == "take" and headings[-1] == "end", headings
