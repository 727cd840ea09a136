import torch


class TimestepSampler:
    def sample_for(self, batch: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class ShiftedLogitNormalTimestepSampler(TimestepSampler):
    def sample_for(self, batch: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.randn((batch.shape[0],), device=batch.device))
