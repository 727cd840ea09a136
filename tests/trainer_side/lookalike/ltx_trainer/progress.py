"""TrainingProgress and SamplingContext by their real names (ltx_trainer/progress.py): the runner
calls start_sampling / start_video / cleanup; a disabled one draws nothing."""


class SamplingContext:
    def __init__(self, progress, task, num_prompts: int, num_steps: int) -> None:
        self.videos_started: list[int] = []

    def start_video(self, video_idx: int) -> None:
        self.videos_started.append(video_idx)

    def advance_step(self) -> None:
        pass

    def cleanup(self) -> None:
        pass


class TrainingProgress:
    def __init__(self, enabled: bool, total_steps: int) -> None:
        self._enabled = enabled

    def __enter__(self) -> "TrainingProgress":
        return self

    def __exit__(self, *args) -> None:
        pass

    @property
    def enabled(self) -> bool:
        return self._enabled

    def start_sampling(self, num_prompts: int, num_steps: int) -> SamplingContext:
        return SamplingContext(None, None, num_prompts, num_steps)
