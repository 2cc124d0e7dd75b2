"""Fixtures of the analysis tests."""

import pytest
from analysis_helpers import make_input, make_model


@pytest.fixture(scope="session")
def toy64():
    """(toy decoder in float64, x [16, 32])."""
    model = make_model()
    return model, make_input(model)


@pytest.fixture(scope="session")
def toy32():
    """(toy decoder in float32, x [16, 32])."""
    model = make_model("float32")
    return model, make_input(model)
