"""fdc's Jinja filters: the English an instruction needs, and nothing that decides truth.

Every filter is a plain function; `FILTERS` maps the name a template writes
(`{{ item | a }}`) to it. `fdc check` reads the names from here to flag unknown filters.
See docs/instructions.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

# ---------------------------------------------------------------------------- articles

# Words starting with a vowel letter but a consonant sound, and the reverse.
_CONSONANT_SOUND = re.compile(r"^(uni|use|usu|uti|ure|one|once|eu|ewe|u[bcfhjkqrstn][aeiou])", re.I)
_VOWEL_SOUND = re.compile(r"^(hour|honest|honou?r|heir|[aeiou])", re.I)
_ACRONYM_VOWEL = set("AEFHILMNORSX")


def _number_article(digits: str) -> str:
    """'an' for numbers said with a vowel first: 8, 11, 18, 80-89, 800..., 11,000."""
    if digits.startswith("8"):
        return "an"
    # 11 and 18 are said "eleven", "eighteen" when they lead a group of three digits.
    if len(digits) % 3 == 2 and digits[:2] in ("11", "18"):
        return "an"
    return "a"


def article(text: Any) -> str:
    """'a' or 'an' by the sound of `text`'s first word: a unicorn, an hour, an LED, an 8."""
    word = str(text).strip().split(" ", 1)[0]
    if not word:
        return "a"
    digits = re.match(r"\d[\d,]*", word)
    if digits:
        return _number_article(digits.group(0).replace(",", ""))
    if len(word) == 1 or word[1] in "-.":
        # A letter said on its own: an x-ray, an F, a B-movie.
        return "an" if word[0].upper() in _ACRONYM_VOWEL and word[0].upper() != "U" else "a"
    if word.isupper() and len(word) > 1 and word.isalpha():
        return "an" if word[0] in _ACRONYM_VOWEL else "a"
    if _CONSONANT_SOUND.match(word):
        return "a"
    return "an" if _VOWEL_SOUND.match(word) else "a"


def with_article(text: Any) -> str:
    """`{{ 'apple' | a }}` -> 'an apple'."""
    return f"{article(text)} {text}"


def with_definite(text: Any) -> str:
    """`{{ 'mug' | the }}` -> 'the mug'."""
    return f"the {text}"


# ---------------------------------------------------------------------------- plurals

_IRREGULAR = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "foot": "feet",
    "tooth": "teeth",
    "mouse": "mice",
    "goose": "geese",
    "die": "dice",
    "ox": "oxen",
}
_INVARIANT = {
    "sheep",
    "fish",
    "deer",
    "series",
    "species",
    "scissors",
    "glasses",
    "pants",
    "shorts",
    "jeans",
    "cutlery",
    "silverware",
    "furniture",
    "equipment",
    "clothing",
}
_F_TO_VES = {
    "knife",
    "life",
    "wife",
    "shelf",
    "leaf",
    "loaf",
    "half",
    "wolf",
    "calf",
    "thief",
    "self",
    "elf",
    "scarf",
}


def _plural_word(word: str) -> str:
    lower = word.lower()
    if lower in _INVARIANT:
        return word
    if lower in _IRREGULAR:
        plural = _IRREGULAR[lower]
        return plural.capitalize() if word[:1].isupper() else plural
    if lower in _F_TO_VES:
        return word[:-2] + "ves" if lower.endswith("fe") else word[:-1] + "ves"
    if re.search(r"(s|x|z|ch|sh)$", lower):
        return word + "es"
    if re.search(r"[^aeiou]y$", lower):
        return word[:-1] + "ies"
    if re.search(r"[^aeiou]o$", lower) and lower in {"potato", "tomato", "hero", "echo"}:
        return word + "es"
    return word + "s"


def plural(noun: Any, n: Any = 2) -> str:
    """The noun's plural unless `n` is 1: mug -> mugs, box -> boxes, shelf -> shelves.

    The last word of a phrase is inflected: 'coffee mug' -> 'coffee mugs'; a phrase with
    'of' inflects its head: 'cup of tea' -> 'cups of tea'.
    """
    text = str(noun)
    if n == 1:
        return text
    head, sep, tail = text.partition(" of ")
    words = head.split(" ")
    words[-1] = _plural_word(words[-1])
    return " ".join(words) + (sep + tail if sep else "")


# ---------------------------------------------------------------------------- numbers

_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINAL_WORDS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def _as_int(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | float | str):
        raise ValueError(f"{what} needs a whole number, not {n!r}")
    value = float(n)
    if not value.is_integer():
        raise ValueError(f"{what} needs a whole number, not {n!r}")
    return int(value)


def number_word(n: Any) -> str:
    """0..99 in words (two, twenty-one); larger numbers as digits."""
    i = _as_int(n, "number_word")
    if i < 0:
        return "minus " + number_word(-i)
    if i < 20:
        return _SMALL[i]
    if i < 100:
        tens, ones = divmod(i, 10)
        return _TENS[tens] + ("-" + _SMALL[ones] if ones else "")
    return str(i)


def ordinal(n: Any) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 102nd, 111th: right for every n."""
    i = _as_int(n, "ordinal")
    if 10 <= abs(i) % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(abs(i) % 10, "th")
    return f"{i}{suffix}"


def ordinal_word(n: Any) -> str:
    """first, second, ..., twenty-first, ..., ninety-ninth; 100th and on as digits."""
    i = _as_int(n, "ordinal_word")
    if not 1 <= i < 100:
        return ordinal(i)
    word = number_word(i)
    head, dash, last = word.rpartition("-")
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + dash + last


# ---------------------------------------------------------------------------- time


def clock(value: Any) -> str:
    """A clock time, zero-padded: minutes since midnight (425 -> '07:05'), or 'H:M'."""
    if isinstance(value, str):
        h, _, m = value.partition(":")
        minutes = int(h) * 60 + int(m or 0)
    else:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise ValueError(f"clock needs minutes since midnight, not {value!r}")
        minutes = round(value)
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def duration(value: Any, unit: str = "minutes") -> str:
    """A duration with its unit: 1 minute, 5 minutes, 1 hour 5 minutes, 30 seconds.

    `value` is in `unit` (seconds, minutes or hours); it is shown in whole minutes when
    at least a minute, else in seconds.
    """
    scale = {
        "seconds": 1,
        "second": 1,
        "s": 1,
        "minutes": 60,
        "minute": 60,
        "min": 60,
        "hours": 3600,
        "hour": 3600,
        "h": 3600,
    }
    if unit not in scale:
        raise ValueError(f"duration unit must be seconds, minutes or hours, not {unit!r}")
    seconds = float(value) * scale[unit]
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"duration needs a finite, non-negative amount, not {value!r}")
    whole_s = math.floor(seconds + 0.5)  # half up: 150 s is 3 minutes, not 2
    if whole_s < 60:
        return f"{whole_s} second" + ("" if whole_s == 1 else "s")
    total_min = math.floor(whole_s / 60 + 0.5)
    hours, minutes = divmod(total_min, 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour" + ("" if hours == 1 else "s"))
    if minutes or not hours:
        parts.append(f"{minutes} minute" + ("" if minutes == 1 else "s"))
    return " ".join(parts)


# ---------------------------------------------------------------------------- lists


def join_list(items: Iterable[Any], conjunction: str = "and", oxford: bool = False) -> str:
    """'a', 'a and b', 'a, b and c' (with `oxford`: 'a, b, and c')."""
    words = [str(x) for x in items]
    if len(words) <= 1:
        return "".join(words)
    if len(words) == 2:
        return f"{words[0]} {conjunction} {words[1]}"
    comma = "," if oxford else ""
    return ", ".join(words[:-1]) + f"{comma} {conjunction} {words[-1]}"


# ---------------------------------------------------------------------------- directions

#: The 8 regions around an anchor, counter-clockwise from the rear (ManiTaskGen's order).
DIRECTIONS = (
    "rear",
    "rear-left",
    "left",
    "front-left",
    "front",
    "front-right",
    "right",
    "rear-right",
)
_DIRECTION_WORDS = {
    "rear": "far side",
    "rear-left": "far left",
    "left": "left",
    "front-left": "near left",
    "front": "near side",
    "front-right": "near right",
    "right": "right",
    "rear-right": "far right",
}


def direction(region: Any, viewer_side: Any = "front", words: bool = False) -> str:
    """A region's direction as seen by a viewer standing at `viewer_side` of the surface.

    Regions are named as a viewer facing the surface's front sees them; a viewer at the
    surface's left side sees its left as 'front' (near). With `words`, 'front' reads
    'near side'. The same rule as the scene graph's (`regions.relative_direction`).
    """
    from fdc.sim_bridge.graph.regions import Direction, Side, relative_direction

    d, v = str(region), str(viewer_side)
    if d == "center" or d == "centre":
        return "center"
    if d not in DIRECTIONS or v not in DIRECTIONS[::2]:
        raise ValueError(
            f"direction needs a region in {DIRECTIONS} and a side in {DIRECTIONS[::2]}, "
            f"not {d!r}, {v!r}"
        )
    rel = relative_direction(Direction(d), Side(v)).value
    return _DIRECTION_WORDS[rel] if words else rel


# ---------------------------------------------------------------------------- entities


def ref(entity: Any) -> str:
    """An entity's referring expression, built by the describe pass, with its article:
    'the red mug', 'the mug on the kitchen counter'. Write `Move {{ o | ref }}.`

    Accepts an object with a `description` attribute, a mapping with a 'description'
    key, or text (returned as is).
    """
    desc = getattr(entity, "description", None)
    if desc is None and isinstance(entity, dict):
        desc = entity.get("description")
    if desc is None and isinstance(entity, str):
        return entity
    if desc is None:
        raise ValueError(f"ref needs an entity with a description, not {entity!r}")
    return str(desc)


def it(entity: Any, n: Any = 1) -> str:
    """The pronoun for a second mention: 'it' (`n` other than 1: 'them').
    Write `Open {{ f | ref }} and then close {{ f | it }}.`"""
    return "it" if n == 1 else "them"


def all_the(noun: Any, n: Any) -> str:
    """The noun of a set of `n` entities with its determiner, its number by the set's
    size: 'the mug' (1), 'both mugs' (2), 'all the mugs' (3 or more)."""
    count = _as_int(n, "all_the")
    if count == 1:
        return f"the {noun}"
    return f"{'both' if count == 2 else 'all the'} {plural(noun, count)}"


def _inside(entity: Any) -> bool:
    return bool(getattr(entity, "inside", False))


def on(entity: Any) -> str:
    """The place on or in an entity, the preposition by what it is: 'in' a compartment,
    a drawer, a container ('in the lower compartment of the fridge'); 'on' a top or a
    shelf ('on the desk'). Write `Put {{ o | ref }} {{ s | on }}.`"""
    return f"{'in' if _inside(entity) else 'on'} {ref(entity)}"


def off(entity: Any) -> str:
    """Away from an entity, the preposition by what it is: 'off the desk', 'out of the
    lower compartment of the fridge'."""
    return f"{'out of' if _inside(entity) else 'off'} {ref(entity)}"


FILTERS: dict[str, Callable[..., Any]] = {
    "a": with_article,
    "an": with_article,
    "article": article,
    "the": with_definite,
    "plural": plural,
    "number_word": number_word,
    "ordinal": ordinal,
    "ordinal_word": ordinal_word,
    "clock": clock,
    "duration": duration,
    "join_list": join_list,
    "direction": direction,
    "ref": ref,
    "it": it,
    "all_the": all_the,
    "on": on,
    "off": off,
}

#: Names every instruction may use besides its parameters.
GLOBALS: dict[str, str] = {
    "targets": "the target entities of a multi-goal task (a list; each works with `ref`)",
    "n_targets": "how many targets the task has",
}
