"""Parse JSON as strict parsers do (RFC 8259: no NaN, Infinity or -Infinity), for tests of
what pertlab writes."""

import json
from typing import Any


def _refuse(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def loads(text: str) -> Any:
    """``json.loads`` that refuses the non-standard constants Python's ``json`` accepts."""
    return json.loads(text, parse_constant=_refuse)
