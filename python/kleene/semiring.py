"""Semirings by name ("min.plus", "min_plus") or as objects (kleene.min_plus)."""

from . import _kleene

# name -> (add, multiply): the instance registry's semirings (cmake/instances.cmake).
_BUILTIN = dict(_kleene._semirings)


class Semiring:
    """One of kleene's built-in semirings: ``add`` and ``multiply`` name its operators."""

    __slots__ = ("name", "add", "multiply")

    def built_for(self):
        """The dtypes this kleene dispatches the semiring to by name (KLEENE_INSTANCES)."""
        return tuple(_kleene._semirings_built[self.name])

    def __init__(self, name):
        key = name.replace(".", "_").replace("-", "_").lower()
        if key not in _BUILTIN:
            raise _kleene.InvalidArgument(
                f"unknown semiring {name!r}; kleene offers "
                + ", ".join(a + "." + m for a, m in _BUILTIN.values()))
        self.name = key
        self.add, self.multiply = _BUILTIN[key]

    def __repr__(self):
        return f"kleene.{self.name}"

    def __eq__(self, other):
        return isinstance(other, Semiring) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


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
