"""Where the ROCm toolchain is (Debian's hipcc, from scripts/setup.sh)."""

from __future__ import annotations

import shutil
from typing import Optional


def hipcc() -> Optional[str]:
    return shutil.which("hipcc")
