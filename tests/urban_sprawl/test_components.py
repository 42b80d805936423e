"""Urban Sprawl data (components.py) against the counts and totals the rulebook states."""

from __future__ import annotations

from collections import Counter

from city_envs.urban_sprawl import components as cp

CIV, COM, IND, RES, PARK = range(5)


def test_grid_values_match_the_spec_table():
    table = [
        [4, 7, 8, 9, 6, 5],
        [4, 7, 8, 9, 6, 5],
        [2, 5, 6, 7, 4, 3],
        [2, 5, 6, 7, 4, 3],
        [3, 6, 7, 8, 5, 4],
        [3, 6, 7, 8, 5, 4],
    ]
    assert [list(cp.BASE_VALUE[6 * r : 6 * r + 6]) for r in range(6)] == table


def test_lots_adjacency_and_edges():
    assert cp.lot_index(11, 11) == 143 and cp.lot_coords(cp.lot_index(5, 7)) == (5, 7)
    assert len(cp.ADJACENT_LOTS[cp.lot_index(5, 5)]) == 8 and len(cp.ADJACENT_LOTS[cp.lot_index(0, 0)]) == 3
    assert cp.lot_index(5, 6) in cp.ADJACENT_LOTS[cp.lot_index(6, 5)]  # across a street, diagonal
    assert cp.LOT_WATER[cp.lot_index(0, 0)] and cp.LOT_FOREST[cp.lot_index(0, 0)]
    assert cp.LOT_WATER[cp.lot_index(11, 11)] and cp.LOT_FOREST[cp.lot_index(11, 11)]
    assert cp.LOT_WATER[cp.lot_index(0, 11)] and not cp.LOT_FOREST[cp.lot_index(0, 11)]
    assert cp.LOT_FOREST[cp.lot_index(11, 0)] and not cp.LOT_WATER[cp.lot_index(11, 0)]
    assert sum(cp.LOT_WATER) == 23 and sum(cp.LOT_FOREST) == 23


def test_circles_address_their_rows():
    assert cp.CIRCLE_BLOCKS[1] == tuple(6 * r + c for r in range(6) for c in (2, 3))
    assert cp.CIRCLE_BLOCKS[3 + 4] == tuple(range(24, 30))
    assert all(len(blocks) == (12 if g < 3 else 6) for g, blocks in enumerate(cp.CIRCLE_BLOCKS))


def test_placements_per_size():
    assert [len(cp.PLACEMENTS[size]) for size in (1, 2, 3, 4)] == [144, 144, 144, 36]
    place, lots, _, _, _ = cp.PLACEMENTS[3][4 * 7 + 2]
    assert place == 30 and lots == (28, 29, 31)  # variant 2 leaves sub-lot 2 uncovered
    assert cp.PLACEMENTS[2][4 * 15 + 3][1] == (cp.lot_index(4, 7), cp.lot_index(5, 7))


def test_starting_buildings():
    assert Counter(zone for zone, _ in cp.STARTING_BUILDINGS) == {RES: 4, COM: 4, IND: 2, CIV: 2}
    assert sum(cp.BASE_VALUE[lot // 4] for _, lot in cp.STARTING_BUILDINGS) == 66


def test_tiles_cover_starting_buildings_and_every_contract():
    assert sum(map(sum, cp.TILES)) == 128 and cp.TILES[PARK] == (20, 0, 0, 0)
    for zone in (CIV, COM, IND, RES):
        for size in (1, 2, 3, 4):
            contracts = sum(1 for c in range(96) if cp.CONTRACT_ZONE[c] == zone and cp.CONTRACT_SIZE[c] == size)
            start = sum(1 for z, _ in cp.STARTING_BUILDINGS if z == zone) if size == 1 else 0
            assert cp.TILES[zone][size - 1] == contracts + start


def test_ap_costs():
    assert cp.PLANNING_AP == (5, 4, 3, 2, 1) and cp.CONTRACT_AP == (6, 5, 4, 5, 4, 3, 2, 1)


def test_vocations():
    assert sum(cp.VOCATION_MARKERS) == 24 and cp.VOCATION_MARKERS[cp.MEDIA] == 1
    assert sorted(cp.VOCATION_MARKERS[1:]) == [2, 2, 3, 3, 4, 4, 5]


def test_planning_deck():
    assert len(cp.PERMITS) == 36 and len(cp.URBAN_RENEWAL) == 4 and len(cp.PLANNING_EVENTS) == 14
    assert cp.PLANNING_CARDS == 54
    for value in (1, 2, 3, 4):
        cards = [p for p in cp.PERMITS if p[1] == value]
        assert len(cards) == 9
        assert sorted(len(p[2]) for p in cards) == [1, 1, 1, 1, 2, 2, 3, 3, 4]
        assert all(p[3] == 3 * value + 2 - len(p[2]) for p in cards)
    assert sum(p[4] for p in cp.PERMITS) == 12
    assert all(p[4] == (len(p[2]) in (2, 4)) for p in cp.PERMITS)
    assert Counter(p[5] for p in cp.PERMITS) == {n: 3 for n in range(1, 13)}
    assert all(sum(1 for p in cp.PERMITS if zone in p[2]) == 18 for zone in (CIV, COM, IND, RES))
    assert cp.INVESTMENT[36] == 0 and cp.BALLOT[36] and cp.BALLOT[37] and not cp.BALLOT[38]
    assert [e[1] for e in cp.PLANNING_EVENTS[:4]] == [
        "Luxury Tax",
        "Real Estate Auction",
        "Urban Blight",
        "Local Headlines",
    ]


def test_contract_decks():
    assert len(cp.CONTRACTS) == 96 and len(cp.CONTRACT_EVENTS) == 15
    expected = {
        cp.TOWN: ((14, 12, 6, 0), 18, 20),
        cp.CITY: ((6, 10, 10, 6), 18, 21),
        cp.METRO: ((2, 8, 10, 12), 16, 24),
    }
    for deck, (sizes, vocation_cards, payout_cards) in expected.items():
        cards = [c for c in cp.deck_cards(deck) if c < 96]
        assert len(cp.deck_cards(deck)) == 37 and len(cards) == 32
        assert Counter(cp.CONTRACT_ZONE[c] for c in cards) == {CIV: 8, COM: 8, IND: 8, RES: 8}
        assert tuple(sum(1 for c in cards if cp.CONTRACT_SIZE[c] == k) for k in (1, 2, 3, 4)) == sizes
        assert sum(1 for c in cards if cp.CONTRACT_VOCATIONS[c]) == vocation_cards
        assert sum(1 for c in cards if cp.CONTRACT_PAYOUT[c]) == payout_cards
        assert sum(1 for e in cp.CONTRACT_EVENTS if e[1] == deck) == 5
        assert cp.CONTRACT_EVENTS[cp.SPECIAL_EVENT[deck]][2] in ("Airport", "Sports Team", "Olympic Games")
    assert max(cp.CONTRACT_PAYOUT[c] for c in range(64)) == 3 and max(cp.CONTRACT_PAYOUT) == 6


def test_status_column():
    partial = [cp.CONTRACT_ID[c] for c in range(96) if cp.CONTRACT_STATUS[c] == cp.PARTIAL]
    assert partial == ["T01", "T02", "T03", "T07", "T23", "C02", "C15", "M02", "M06", "M16", "M22"]
    assert cp.NUM_CONTRACT_EVENTS == 15 and set(cp.CONTRACT_ZONE) == set(cp.CONTRACT_ZONES)


def test_named_cards():
    corporate = cp.CONTRACTS[46]
    assert corporate[:4] == ("C15", "Corporate HQ", COM, 4) and corporate[5] == ((cp.FINANCE, 6),)
    assert corporate[6] == (
        (cp.PER_BUILDING, cp.ACTIVE_ALL, 4, 0, (COM,), 4, cp.CITY_SCOPE),
        (cp.PER_BUILDING, cp.EACH_OWN, 3, 0, (COM,), 3, cp.CITY_SCOPE),
    )
    assert cp.CONTRACTS[6][:4] == ("T07", "High School", CIV, 2)
    assert cp.CONTRACTS[22][6] == ((cp.EXTRA_FAVOR,),)
    assert cp.CONTRACTS[33][6] == ((cp.WIN_ELECTION, cp.DISTRICT_ATTORNEY),)
    assert cp.CONTRACTS[79][4] == (cp.IGNORE_ZONING, 0) and cp.CONTRACTS[79][6] == ((cp.TRIBUTE, 4, (RES,), 1),)


def test_payout_table():
    assert cp.payout_table(6) == (6, 3, 1, 0)
    assert [cp.payout_table(n) for n in (1, 8, 12)] == [(1, 0, 0, 0), (8, 4, 2, 1), (12, 6, 3, 1)]
