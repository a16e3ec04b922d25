"""Shared fixtures: a fresh database file per test."""

import pytest

import ordo


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "test.ordo")


@pytest.fixture
def db(path):
    with ordo.open(path) as d:
        yield d
