"""``ragraf.indexing.trim_memory``: memory a build frees is handed back to the system."""

from __future__ import annotations

import platform

import pytest

from ragraf.indexing import trim_memory


def test_freed_memory_is_handed_back_where_the_c_library_can() -> None:
    blocks = [bytes(64 * 1024) for _ in range(512)]  # 32 MiB of C-heap blocks
    del blocks
    trim_memory.give_back()  # never changes anything but the resident size
    trim_memory.give_back()  # and may be called again
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert trim_memory._trim, "glibc has malloc_trim: the build's peak depends on it"
    else:
        pytest.skip(f"no glibc here ({platform.libc_ver()}): give_back does nothing")
