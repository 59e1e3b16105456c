"""core.streams: the pieces joined are the bytes of the whole report."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from fdc.core.streams import json_list_chunks, junit_chunks


class Item(BaseModel):
    name: str
    values: list[int]


class Report(BaseModel):
    title: str
    items: list[Item]


items_st = st.lists(st.builds(Item, name=st.text(max_size=8),
                              values=st.lists(st.integers(), max_size=3)), max_size=5)


@given(items_st)
def test_json_pieces_are_the_whole_dump(items: list[Item]) -> None:
    whole = Report(title="t", items=items).model_dump_json(indent=2)
    assert "".join(json_list_chunks(Report(title="t", items=[]), "items", items)) == whole


def test_json_refuses_a_field_that_is_not_last_and_empty() -> None:
    with pytest.raises(ValueError, match="'title'"):
        list(json_list_chunks(Report(title="t", items=[]), "title", []))


@given(st.lists(st.text(alphabet="abc<&\"", max_size=6), min_size=1, max_size=4))
def test_junit_pieces_are_the_whole_tree(names: list[str]) -> None:
    def case(name: str) -> ET.Element:
        c = ET.Element("testcase", classname="k", name=name)
        ET.SubElement(c, "failure", type="x", message=name).text = "$ fdc"
        return c

    root = ET.Element("testsuites", name="fdc x")
    suite = ET.SubElement(root, "testsuite", name="s.jsonl", tests=str(len(names)),
                          failures="1", errors="0")
    suite.extend(case(n) for n in names)
    ET.indent(root)
    whole = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
    pieces = junit_chunks("fdc x", "s.jsonl", len(names), 1, (case(n) for n in names))
    assert "".join(pieces) == whole
