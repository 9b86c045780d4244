# stands in for the conftest of numba-cuda's repository, which its wheel does not ship
import pytest


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False
