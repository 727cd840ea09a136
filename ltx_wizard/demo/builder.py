"""Build the `--demo` folder: a look-alike checkout, model files, a three-sample data root, and
a folder of look-alike clips (real tiny videos: any reader, a real ffprobe too, takes them) with
its dataset.json.

Pure and idempotent (rebuilding over an existing demo folder rewrites the same files), so the
tests and the screenshot script can point it at a fixed folder and get byte-identical paths.
Everything is tiny on disk: the 22 B-parameter checkpoint is a sparse file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ltx_wizard.demo import DEMO_PRESET  # in the package: the app reads it without pydantic
from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir


class DemoSetup(BaseModel):
    model_config = ConfigDict(frozen=True)

    root: Path
    checkout: Path
    checkpoint: Path
    text_encoder: Path
    data_root: Path
    workspace: Path
    simulate: str
    dataset_file: Path  # clips to preprocess: what `--demo` starts from


def demo_folders() -> list[str]:
    """Every folder any recipe of the demo checkout reads, so each recipe can be chosen.

    Worked out from the blocks the checkout's configs are written from (the t2v files' strategy
    and each look-alike recipe's), parsing only those few lines: parsing the seven written configs
    whole was most of a `--demo` start (~0.4 s). tests/demo/test_builder_folders.py holds the two
    answers equal."""
    from ltx_wizard.core.dataset.sources import required_folders
    from ltx_wizard.core.io.yaml_parse import load_yaml
    from ltx_wizard.demo.lookalike_checkout import STRATEGY_BLOCK
    from ltx_wizard.demo.lookalike_recipes import RECIPES, strategy_block

    folders = ["latents", "conditions", "audio_latents"]
    for block in (STRATEGY_BLOCK, *(strategy_block(r) for r in RECIPES)):
        strategy = load_yaml(block)["training_strategy"]
        folders += [f for f in required_folders(strategy) if f not in folders]
    return folders


# The demo's clips as the trainer's preprocessing reads them (scripts/process_dataset.py: columns by
# role, paths relative to the file): the Paths screen offers them as validation media.
DEMO_DATASET = (
    {
        "caption": "A red kite over a grey beach",
        "video": "prefix_1.mp4",
        "audio": "rain_1.wav",
        "reference_video": "reference_1.mp4",
        "video_mask": "inpaint_mask_1.mp4",
    },
    {"caption": "A cat walks across a sunlit kitchen floor", "video": "prefix_2.mp4"},
)


def write_dataset_file(folder: Path, media: Path) -> Path:
    """dataset.json beside the data root, naming the demo's media files."""
    rows = [
        {k: v if k == "caption" else os.path.relpath(media / v, folder) for k, v in row.items()}
        for row in DEMO_DATASET
    ]
    path = folder / "dataset.json"
    path.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return path


def build_demo(root: Path, *, simulate: str | None = None) -> DemoSetup:
    """Write the demo files under `root` (created if needed) and say where they are."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    checkout = make_checkout(root / "LTX-2", media=root / "media")
    models = root / "models"
    checkpoint = make_checkpoint(models / "ltx-2-19b-dev.safetensors", params_b=19.0)
    text_encoder = make_gemma_dir(models / "gemma-3-12b-it")
    # One batch on every simulated GPU at least (core/dataset/loader_batches.py): an 8-GPU demo
    # with 3 samples would plan a run whose loader yields nothing.
    gpus = len(preset_gpus(simulate or DEMO_PRESET))
    data_root = make_data_root(
        root / "datasets" / "demo-clips" / ".precomputed", max(3, gpus), folders=demo_folders()
    )
    write_dataset_file(data_root.parent, root / "media")
    # Clips of 97 frames (one silent, so the audio check has something to name) at 1280x720.
    clips: list[dict[str, object]] = [{}, {"frames": 121}, {"audio": False}, {"frames": 73}]
    clips += [{}] * max(0, gpus + 1 - len(clips))  # the silent one is left out of training
    dataset_file = make_clip_dataset(root / "clips" / "demo-cats", clips)
    workspace = root / "ltx-trainings"
    workspace.mkdir(exist_ok=True)
    return DemoSetup(
        root=root,
        checkout=checkout,
        checkpoint=checkpoint,
        text_encoder=text_encoder,
        data_root=data_root,
        workspace=workspace,
        simulate=simulate or DEMO_PRESET,
        dataset_file=dataset_file,
    )
