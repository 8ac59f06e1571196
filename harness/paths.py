"""Where the repository and its shipped weights are."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WEIGHTS = REPO / "weights"
