"""Semirings by name ("min.plus", "min_plus"), as objects (kleene.min_plus), composed of operator
names (kleene.Semiring(add="max", multiply="first")) or as CUDA source text (Semiring.from_source).
"""

import math
import zlib

import numpy as np

from . import _kleene

# name -> (add, multiply): the instance registry's semirings (cmake/instances.cmake).
_BUILTIN = dict(_kleene._semirings)
_BY_PAIR = {pair: name for name, pair in _BUILTIN.items()}

# What a composition takes: the additive monoids and the multiplicative operators of semiring.hpp
# (the sets jit::compose and kleene::runtime_semiring take).
ADD_MONOIDS = ("plus", "times", "min", "max", "lor", "land", "any")
MULTIPLY_OPS = ("plus", "times", "min", "max", "land", "lor", "first", "second", "pair")

_JIT_TYPES = {"float32": "float", "float64": "double", "int32": "int32_t", "int64": "int64_t"}


class Semiring:
    """A semiring: ``add`` and ``multiply`` name its operators.

    ``Semiring("min_plus")`` is a built-in by name; ``Semiring(add="max", multiply="first")``
    composes one (the additive monoid one of plus, times, min, max, lor, land, any; the multiply
    one of plus, times, min, max, land, lor, first, second, pair). A composition that is a
    built-in is that built-in (equal, and it runs the compiled instances); the others run kleene's
    generic CPU kernels (one instance per value type, the operators chosen per call) and, on device
    matrices, kernels the JIT compiles. ``Semiring.from_source`` gives one as CUDA source text
    (device matrices only)."""

    __slots__ = ("name", "add", "multiply", "_spec", "_source")

    def built_for(self):
        """The dtypes this kleene runs the semiring over: a built-in's compiled instances
        (KLEENE_INSTANCES); a composition's the four numeric types (the generic kernels); a source
        semiring's its value type (GPU only)."""
        if self._source is not None:
            return (self._source[1],)
        if isinstance(self._spec, tuple):
            return tuple(_JIT_TYPES)
        return tuple(_kleene._semirings_built[self.name])

    def __init__(self, name=None, *, add=None, multiply=None):
        self._source = None
        if name is not None:
            if add is not None or multiply is not None:
                raise _kleene.InvalidArgument("a semiring is named (Semiring('min_plus')) or "
                                              "composed (Semiring(add=..., multiply=...)), not both")
            key = name.replace(".", "_").replace("-", "_").lower()
            if key not in _BUILTIN:
                raise _kleene.InvalidArgument(
                    f"unknown semiring {name!r}; kleene offers "
                    + ", ".join(a + "." + m for a, m in _BUILTIN.values())
                    + ", or compose one: kleene.Semiring(add=..., multiply=...)")
            self.name = key
            self.add, self.multiply = _BUILTIN[key]
            self._spec = key
            return
        if add is None or multiply is None:
            raise _kleene.InvalidArgument("a composed semiring names both operators: "
                                          "kleene.Semiring(add=..., multiply=...)")
        a, m = str(add).lower(), str(multiply).lower()
        if a not in ADD_MONOIDS:
            raise _kleene.InvalidArgument(f"unknown additive monoid {add!r}; the choices are "
                                          + ", ".join(ADD_MONOIDS))
        if m not in MULTIPLY_OPS:
            raise _kleene.InvalidArgument(f"unknown multiplicative operator {multiply!r}; the "
                                          "choices are " + ", ".join(MULTIPLY_OPS))
        self.add, self.multiply = a, m
        builtin = _BY_PAIR.get((a, m))
        self.name = builtin if builtin else f"{a}_{m}"
        self._spec = builtin if builtin else ("compose", a, m)

    @classmethod
    def _generic(cls, add, multiply):
        """The composition run by the generic kernels even where it is a built-in (for measuring
        them against the compiled instances: bench/python/bench_user_semiring.py)."""
        s = cls(add=add, multiply=multiply)
        s._spec = ("compose", s.add, s.multiply)
        return s

    @classmethod
    def from_source(cls, *, value_type, zero, one, add, mul, idempotent_add=False, terminal=None,
                    zero_annihilates=False, preamble="", name=None):
        """A semiring as CUDA C++ source (kleene::cuda::jit::semiring_source), for device
        matrices: ``add`` and ``mul`` are expressions in ``a`` and ``b`` of ``value_type``
        (float32, float64, int32, int64); ``zero``, ``one`` and ``terminal`` are numbers or
        expressions (``zero`` must be a number or a numeric literal: the host needs its value for
        absent entries). The traits mean what semiring.hpp's do: ``idempotent_add`` (a + a == a),
        ``terminal`` (an absorbing value of add; None: none), ``zero_annihilates`` (mul(zero, x)
        == zero for all x; False is always correct). ``preamble`` is placed before the semiring
        (helper __device__ functions). On host matrices it raises kleene.InvalidArgument."""
        dt = np.dtype(value_type).name
        if dt not in _JIT_TYPES:
            raise _kleene.InvalidArgument(f"value_type {value_type!r}: source semirings are over "
                                          + ", ".join(_JIT_TYPES))
        ctype = _JIT_TYPES[dt]
        for what, text in (("add", add), ("mul", mul)):
            if not isinstance(text, str) or not text.strip():
                raise _kleene.InvalidArgument(f"{what} is an expression in a and b, as a string")
        zero_value = _number(zero, dt, "zero")
        s = cls.__new__(cls)
        text = "\0".join((dt, str(zero), str(one), add, mul, str(terminal), preamble))
        s.name = name or f"user_{zlib.crc32(text.encode()):08x}"
        if not s.name.isidentifier():
            raise _kleene.InvalidArgument(f"a semiring's name is an identifier, not {s.name!r}")
        s.add, s.multiply = add, mul
        s._source = (s.name, dt, _c_text(zero, ctype), _c_text(one, ctype), add, mul,
                     "" if terminal is None else _c_text(terminal, ctype), bool(idempotent_add),
                     bool(zero_annihilates), preamble)
        s._spec = ("source", s.name, ctype) + s._source[2:] + (zero_value,)
        return s

    def __repr__(self):
        if self._source is not None:
            return f"kleene.Semiring.from_source(name={self.name!r}, value_type={self._source[1]!r})"
        if isinstance(self._spec, tuple):
            return f"kleene.Semiring(add={self.add!r}, multiply={self.multiply!r})"
        return f"kleene.{self.name}"

    def _key(self):
        return self._source if self._source is not None else (self.add, self.multiply)

    def __eq__(self, other):
        return isinstance(other, Semiring) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())


def _number(x, dtype, what):
    """A source semiring's zero as a number of dtype (a literal like "0.0f" or "-1" is read)."""
    if isinstance(x, str):
        text = x.strip().rstrip("fFlLuU")
        try:
            x = float(text) if np.dtype(dtype).kind == "f" else int(text, 0)
        except ValueError:
            raise _kleene.InvalidArgument(
                f"{what} {x!r}: give it as a number or a numeric literal (the host needs its "
                "value: it stands for no entry)") from None
    if np.dtype(dtype).kind == "f":
        return float(x)
    if isinstance(x, float) and math.isinf(x):
        info = np.iinfo(dtype)
        return int(info.max if x > 0 else info.min)
    return int(x)


def _c_text(x, ctype):
    """A number as C++ source of ctype; a string is an expression, passed as it is."""
    if isinstance(x, str):
        return x
    if ctype in ("float", "double"):
        x = float(x)
        if math.isinf(x):
            return ("-" if x < 0 else "") + f"kleene::infinity<{ctype}>()"
        return repr(x) + ("f" if ctype == "float" else "")
    if isinstance(x, float) and math.isinf(x):
        return ("" if x > 0 else "-") + f"kleene::infinity<{ctype}>()" + ("" if x > 0 else " - 1")
    return f"{ctype}({int(x)}LL)"


def semiring(s):
    """A Semiring from a Semiring, "min.plus", "min_plus" (any case)."""
    if isinstance(s, Semiring):
        return s
    if isinstance(s, str):
        return Semiring(s)
    raise TypeError(f"a semiring is a kleene.Semiring or a name like 'min.plus', not {type(s).__name__}")


plus_times = Semiring("plus_times")
min_plus = Semiring("min_plus")
max_plus = Semiring("max_plus")
max_min = Semiring("max_min")
min_max = Semiring("min_max")
lor_land = Semiring("lor_land")
any_pair = Semiring("any_pair")
plus_pair = Semiring("plus_pair")
min_first = Semiring("min_first")
min_second = Semiring("min_second")
plus_min = Semiring("plus_min")
max_times = Semiring("max_times")
