"""lostmid_jax/validation.py: the shared argument checks and the NumPy-scalar unwrapping."""

from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax import validation as v


def test_python_scalar_unwraps_numpy_and_keeps_the_rest():
    assert type(v.python_scalar(np.int32(3))) is int and type(v.python_scalar(np.bool_(True))) is bool
    assert isinstance(v.python_scalar(np.array(2.5)), float) and v.python_scalar(np.str_("a")) == "a"
    array = np.arange(3)
    assert v.python_scalar(array) is array
    third = np.longdouble(1) / 3
    if float(third) != third:  # a platform whose long double is wider than float64: kept exact
        assert v.python_scalar(third) == Fraction(*third.as_integer_ratio())


@pytest.mark.parametrize("check,args,ok", [
    (v.check_int, (5, 1, 10), 5), (v.check_int_like, (np.int64(5), 1), 5), (v.check_optional_int, (None, 1), None),
    (v.check_float, (0.5, 0, 1), 0.5), (v.check_float_like, (np.array(0.5), 0, 1), 0.5),
    (v.check_positive_float, (2,), 2.0), (v.check_bool_like, (np.bool_(False),), False),
    (v.check_real, (Fraction(1, 3), 0, 1), Fraction(1, 3)), (v.check_choice, ("a", ("a", "b")), "a"),
])
def test_good_values_come_back_as_python_values(check, args, ok):
    out = check("arg", *args)
    assert out == ok and type(out) is type(ok)


@pytest.mark.parametrize("check,args,message", [
    (v.check_int, (True,), "arg must be an int , got True"),
    (v.check_int, (0, 1, 10), "arg must be an int in [1, 10], got 0"),
    (v.check_int, (2.0, 1), "arg must be an int >= 1"),
    (v.check_float, (10**400,), "arg must be"),
    (v.check_float, (float("nan"),), "arg must be"),
    (v.check_float, (0.0, 0.0, 1.0), None),
    (v.check_positive_float, (0.0,), "arg must be"),
    (v.check_bool, ("False",), "arg must be True or False, got 'False'"),
    (v.check_bool, (0,), "arg must be True or False"),
    (v.check_choice, ("c", ("a", "b")), "arg must be one of ('a', 'b'), got 'c'"),
])
def test_bad_values_are_refused_naming_the_argument(check, args, message):
    if message is None:  # a closed bound is inside
        assert check("arg", *args) == 0.0
        with pytest.raises(ValueError, match="arg"):
            check("arg", *args, open_min=True)
        return
    with pytest.raises(ValueError) as err:
        check("arg", *args)
    assert str(err.value).startswith(message)
