"""PrecomputedDataset as the real one enumerates and loads it (sorted **/*.pt of the first source,
kept when every source has it; FileNotFoundError for a missing folder)."""

from pathlib import Path

import torch
from torch.utils.data import Dataset


class PrecomputedDataset(Dataset):
    def __init__(self, data_root: str, data_sources: dict[str, str]) -> None:
        root = Path(data_root).expanduser().resolve()
        if not root.exists():
            raise FileNotFoundError(f"Data root directory does not exist: {root}")
        if (root / ".precomputed").exists():
            root = root / ".precomputed"
        self.data_root, self.data_sources = root, dict(data_sources)
        self.source_paths = {name: root / name for name in self.data_sources}
        for name, path in self.source_paths.items():
            if not path.exists():
                raise FileNotFoundError(f"Required {name} directory does not exist: {path}")
        key = "latents" if "latents" in self.data_sources else next(iter(self.data_sources))
        files = sorted(self.source_paths[key].glob("**/*.pt"))
        if not files:
            raise ValueError(f"No data files found in {self.source_paths[key]}")
        rels = [f.relative_to(self.source_paths[key]) for f in files]
        rels = [r for r in rels if all((p / r).exists() for p in self.source_paths.values())]
        self.sample_files = {out: list(rels) for out in self.data_sources.values()}

    def __len__(self) -> int:
        return len(next(iter(self.sample_files.values())))

    def __getitem__(self, index: int) -> dict:
        result = {}
        for name, out in self.data_sources.items():
            path = self.source_paths[name] / self.sample_files[out][index]
            result[out] = torch.load(path, map_location="cpu", weights_only=True)
        result["idx"] = index
        return result
