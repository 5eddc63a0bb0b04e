"""Fuzzing as a habit: any input ends in a report or an input error, never another exception.

Property tests (hypothesis) give every loader arbitrary bytes in every format
it declares, and JSON documents of any shape to the wire loader; the seeded
mutation fuzzer (tests/fuzz.py) mutates the real examples and their file names, and reads each
report back in one output format after another. A longer run:
``python tests/fuzz.py --cases 100000``.
"""

from __future__ import annotations

import io
import json

import pytest
import tgtrace
from fuzz import output_problem, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tgtrace.inputs.loaders import INPUT_FORMATS, InputError

FUZZ_CASES = 3000


def lint_bytes(data: bytes, name: str, input_format: str | None = None) -> None:
    stream = io.BytesIO(data)
    stream.name = name
    try:
        tgtrace.lint(stream, input_format=input_format, fail_on="never")
    except InputError as exc:
        # The one line a user sees: the parser's message quotes the bytes.
        assert output_problem("text", str(exc)) is None and "\n" not in str(exc), str(exc)


@pytest.mark.parametrize("input_format", INPUT_FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400))
def test_any_bytes_in_any_declared_format(input_format, data):
    lint_bytes(data, "fuzz", input_format)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["s", "p", "o", "t", "i", "v", "d", "dt", "ln", "tr", "g", "explain_triples",
                         "explain_graph", "message_type", "@id", "@context", "@graph"]), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=JSON_VALUES)
def test_any_json_document(document):
    data = json.dumps(document).encode()
    lint_bytes(data, "fuzz.json")
    lint_bytes(data + b"\n" + data, "fuzz.jsonl")


def test_mutations_of_the_examples_never_crash():
    crashes = [c for c in (run(seed) for seed in range(FUZZ_CASES)) if c]
    assert not crashes, "\n\n".join(crashes[:3])
