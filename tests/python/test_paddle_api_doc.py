"""docs/paddle_api.md (which of Paddle's public names oar has) is generated from the
installed oar by tools/paddle_api/coverage.py; it must match what oar provides now."""
import os
import subprocess
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_paddle_api_page_is_current():
    r = subprocess.run([sys.executable, os.path.join(_REPO, "tools", "paddle_api", "coverage.py"),
                        "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout
