"""The shared SVG drawing: every text escaped, seat colours only for seats, no label too small to read."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from city_envs.core.svg import MIN_FONT, SEAT_COLOURS, Drawing, escape, seat_distance

NS = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert('x')</script> & \"quoted\" ]]> <!--"


def test_hostile_text_stays_text():
    d = Drawing(400, 200, HOSTILE)
    d.text(10, 30, HOSTILE)
    d.choice(3, HOSTILE, ((0, 0), (10, 0), (10, 10)))
    d.legend(10, 60, [(HOSTILE, "#eeeeee"), (HOSTILE, 0)])
    document = d.document()
    assert "<script" not in document and "<!--" not in document
    root = ET.fromstring(document)
    texts = [element.text for element in root.iter(f"{NS}text")]
    assert texts.count(HOSTILE) == 3  # the text and the legend's two labels, unchanged once parsed
    assert root.find(f"{NS}title").text == HOSTILE
    choice = root.find(f"{NS}g[@class='choice']")
    assert choice.get("aria-label") == HOSTILE and choice.find(f"{NS}title").text == HOSTILE
    assert escape("'") == "&#39;"


def test_seat_colours_are_painted_only_for_seats():
    d = Drawing(100, 100, "t")
    for colour in (*SEAT_COLOURS, "#c0392b", "#e74c3c", "#1a5fb4", "#ecaa10"):  # the seats, and colours near them
        with pytest.raises(ValueError, match="seat colour"):
            d.rect(0, 0, 5, 5, fill=colour)
        with pytest.raises(ValueError, match="seat colour"):
            d.text(0, 20, "x", fill=colour)
    d.rect(0, 0, 5, 5, fill="#eeeeee", seat=2)  # the outline is seat 2's, and the element says so
    assert f'stroke="{SEAT_COLOURS[2]}"' in d.parts[-1] and 'data-seat="2"' in d.parts[-1]
    assert seat_distance("#ffffff") > 20 and seat_distance(SEAT_COLOURS[0]) == 0


def test_small_text_and_wide_boards_are_refused():
    with pytest.raises(ValueError, match="at least"):
        Drawing(100, 100, "t").text(0, 0, "tiny", size=MIN_FONT - 1)
    with pytest.raises(ValueError, match="wide"):
        Drawing(5000, 100, "t")


def test_the_palette_is_told_apart():
    """Seat colours differ from each other far more than the least difference the eye notices."""
    for index, colour in enumerate(SEAT_COLOURS):
        others = SEAT_COLOURS[:index] + SEAT_COLOURS[index + 1 :]
        assert all(_lab_distance(colour, other) > 40 for other in others), colour


def _lab_distance(a: str, b: str) -> float:
    from city_envs.core.svg import lab

    return sum((x - y) ** 2 for x, y in zip(lab(a), lab(b), strict=True)) ** 0.5
