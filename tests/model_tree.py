"""One look-alike box for the tests: checkout, checkpoint, Gemma folder and data root under one
tmp_path, and the `plan` arguments that use them. The `model_tree` fixture (tests/conftest.py)
builds it; tests that vary a piece pass it as a keyword."""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir

CONFIGS = "packages/ltx-trainer/configs"


class ModelTree:
    def __init__(
        self,
        root: Path,
        *,
        data: str = "cats",
        samples: int = 5,
        audio: bool = True,
        sim: str | None = "h100",
    ) -> None:
        self.checkout = make_checkout(root / "LTX-2")
        self.ckpt = make_checkpoint(root / "models" / "ltx-2.safetensors")
        self.gemma = make_gemma_dir(root / "models" / "gemma-3")
        self.data = make_data_root(root / data / ".precomputed", samples, audio=audio)
        self.ws = root / "ws"
        self.run = self.ws / "run"  # where args() plans
        self.sim = sim

    def args(self, *extra: str, sim: str | None | type(...) = ...) -> list[str]:
        """`plan` for this box into ws/run; sim=None plans from the real probe."""
        sim = self.sim if sim is ... else sim
        source = ["--simulate", sim] if sim else []
        return [
            "plan",
            "--trainer-root",
            str(self.checkout),
            "--checkpoint",
            str(self.ckpt),
            "--text-encoder",
            str(self.gemma),
            "--data-root",
            str(self.data),
            "--workspace",
            str(self.ws),
            "--run-name",
            "run",
            *source,
            *extra,
        ]

    def shipped(self, name: str) -> Path:
        return self.checkout / CONFIGS / name
