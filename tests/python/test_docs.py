"""docs/python.md's seed examples, run as they are written on every device present, with that
device as the default: a page whose examples stop working fails here."""

import os
import re

import pytest

import anygpu
from conftest import DEVICES

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def _examples():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Each seed's GPU example, with anygpu", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"\*\*(\w[\w.]*)\*\*:.*?```python\n(.*?)```", section, re.S)


EXAMPLES = _examples()


def test_the_page_has_the_four_seed_examples():
    assert [name for name, _ in EXAMPLES] == ["pyxem", "sporco.cupy", "MPoL", "Flux"]


@pytest.mark.parametrize("dev", DEVICES, ids=[d.spec for d in DEVICES])
@pytest.mark.parametrize("name,code", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_example_runs(dev, name, code):
    with anygpu.device(dev.spec):
        exec(compile(code, "docs/python.md (%s)" % name, "exec"), {})
