"""Reports written a piece at a time: the bytes of a pydantic report whose last field is
a long list (`json_list_chunks`) and of a JUnit XML report (`junit_chunks`), made from the
report without that list and an iterator over its items, so that a suite's report is
never held whole. `fdc validate` and `fdc audit` stream theirs through these."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element


def json_list_chunks(header: BaseModel, field: str, items: Iterable[BaseModel]
                     ) -> Iterator[str]:
    """`model_dump_json(indent=2)` of `header` with its last field `field` (empty in
    `header`) holding `items`, in pieces: the same bytes as dumping the whole model."""
    whole = header.model_dump_json(indent=2)
    tail = f'"{field}": []\n}}'
    if not whole.endswith(tail):
        raise ValueError(f"{field!r} is not the report's last field, or not empty")
    first = True
    for item in items:
        if first:
            yield whole[:-len(tail)] + f'"{field}": [\n'
        yield ("" if first else ",\n") + "\n".join(
            "    " + x for x in item.model_dump_json(indent=2).split("\n"))
        first = False
    yield whole if first else "\n  ]\n}"


def junit_chunks(name: str, suite: str, tests: int, failures: int,
                 cases: Iterable[Element]) -> Iterator[str]:
    """A JUnit XML report, `<testsuites name=name>` holding one `<testsuite>` of the
    test `cases` (each a `<testcase>` element), in pieces: the same bytes as building
    the whole tree and writing it with `ET.indent` and an XML declaration."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name=name)
    holder = ET.SubElement(root, "testsuite", name=suite, tests=str(tests),
                           failures=str(failures), errors="0")
    ET.SubElement(holder, "cut")
    ET.indent(root)
    start, end = ET.tostring(root, encoding="unicode", xml_declaration=True
                             ).split("<cut />")
    yield start
    first = True
    for case in cases:
        ET.indent(case, level=2)
        yield ("" if first else "\n    ") + ET.tostring(case, encoding="unicode")
        first = False
    yield end + "\n"
