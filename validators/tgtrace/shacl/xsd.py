"""XSD lexical forms: which literals are well formed, and the values SPARQL orders them by."""

from __future__ import annotations

import datetime
import re
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING

import pyoxigraph as ox
import rdflib

from ..ground.namespaces import XSD

if TYPE_CHECKING:
    from ..ground.graph import Node

_Literal = ox.Literal
XSD_STRING = XSD + "string"

# SPARQL's "<" (SPARQL 1.1, 17.3) is defined within these groups only: numbers of any
# numeric type, simple literals and xsd:string, booleans, and each date/time type with
# itself. Values from two groups, language-tagged strings, other datatypes, IRIs, blank
# nodes and ill-typed literals are not comparable, which the range and lessThan
# components report as a violation. rdflib's Literal ordering cannot stand in for this:
# it orders any two literals (by datatype IRI when it has nothing better).
_INTEGERS = {  # xsd:integer and its derived types, with their value ranges
    "integer": (None, None), "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1), "short": (-2**15, 2**15 - 1),
    "byte": (-2**7, 2**7 - 1), "nonNegativeInteger": (0, None), "positiveInteger": (1, None),
    "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1), "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 2**8 - 1)}
_INTEGERS = {XSD + name: bounds for name, bounds in _INTEGERS.items()}
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLOAT_TEXT = re.compile(r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN)")
_TZ = r"(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_DATE_TEXT = re.compile(r"(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})" + _TZ)
_TIME_TEXT = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?" + _TZ)
_DATETIME_TEXT = re.compile(r"(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?" + _TZ)


def _offset(zone: str | None) -> int:
    """A timezone's offset in seconds."""
    if not zone or zone == "Z":
        return 0
    sign = -1 if zone[0] == "-" else 1
    return sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)


def _seconds(hour: str, minute: str, second: str, fraction: str | None) -> Decimal | None:
    h, m, s = int(hour), int(minute), int(second)
    if m > 59 or s > 59 or h > 24 or (h == 24 and (m or s or (fraction and Decimal(fraction)))):
        return None
    return Decimal(h * 3600 + m * 60 + s) + (Decimal(fraction) if fraction else 0)


def _day(year: str, month: str, day: str) -> int | None:
    # Days as Python counts them; years outside 1..9999 are not compared.
    try:
        return date(int(year), int(month), int(day)).toordinal()
    except ValueError:
        return None


def order_key(value: Node) -> tuple | None:
    """(group, key): literals of one group are ordered by their keys; None when "<" is undefined."""
    if type(value) is not _Literal or value.language:
        return None
    datatype, text = value.datatype.value, value.value
    if datatype == XSD_STRING:
        return "string", text
    text = text.strip()  # the numeric and date/time types collapse whitespace
    if datatype in _INTEGERS:
        if not _INTEGER_TEXT.fullmatch(text):
            return None
        number, (low, high) = int(text), _INTEGERS[datatype]
        if (low is not None and number < low) or (high is not None and number > high):
            return None
        return "number", number
    if datatype == XSD + "decimal":
        return ("number", Decimal(text)) if _DECIMAL_TEXT.fullmatch(text) else None
    if datatype in (XSD + "double", XSD + "float"):
        if not _FLOAT_TEXT.fullmatch(text):
            return None
        double = float(text)
        return None if double != double else ("number", double)  # NaN compares with nothing
    if datatype == XSD + "boolean":
        return ("boolean", text in ("true", "1")) if text in ("true", "false", "1", "0") else None
    if datatype in (XSD + "dateTime", XSD + "dateTimeStamp"):
        match = _DATETIME_TEXT.fullmatch(text)
        if match is None or (datatype == XSD + "dateTimeStamp" and match[8] is None):
            return None
        day, seconds = _day(*match.group(1, 2, 3)), _seconds(*match.group(4, 5, 6, 7))
        if day is None or seconds is None:
            return None
        # With and without a timezone are not comparable (XPath's implicit timezone is not SPARQL's).
        return ("dateTime", match[8] is not None), day * 86400 + seconds - _offset(match[8])
    if datatype == XSD + "date":
        match = _DATE_TEXT.fullmatch(text)
        day = _day(*match.group(1, 2, 3)) if match else None
        return None if day is None or match is None else (("date", match[4] is not None), day * 86400 - _offset(match[4]))
    if datatype == XSD + "time":
        match = _TIME_TEXT.fullmatch(text)
        seconds = _seconds(*match.group(1, 2, 3, 4)) if match else None
        return None if seconds is None or match is None else (("time", match[5] is not None), seconds - _offset(match[5]))
    return None


def compare(a: Node, b: Node) -> int | None:
    """-1, 0 or 1 by SPARQL's ordering of a and b, or None when they are not comparable."""
    left, right = order_key(a), order_key(b)
    if left is None or right is None or left[0] != right[0]:
        return None
    return (left[1] > right[1]) - (left[1] < right[1])



# rdflib parses these datatypes leniently (a date is accepted as an xsd:dateTime), so the
# parsed value's Python type is checked too, as SHACL's "well-formed literal" asks.
_VALUE_TYPES = {
    XSD + "boolean": (bool,), XSD + "integer": (int,), XSD + "float": (float,),
    XSD + "double": (float,), XSD + "decimal": (Decimal,),
    XSD + "date": (datetime.date,), XSD + "time": (datetime.time,),
    XSD + "dateTime": (datetime.datetime,),
}


def well_formed(literal: rdflib.Literal) -> bool:
    if literal.ill_typed:
        return False
    types = _VALUE_TYPES.get(str(literal.datatype))
    if types is None:
        return True
    value = literal.value
    if isinstance(value, bool) and bool not in types:
        return False  # bool is an int to Python
    if isinstance(value, datetime.datetime) and datetime.datetime not in types:
        return False  # and a datetime is a date
    return isinstance(value, types)
