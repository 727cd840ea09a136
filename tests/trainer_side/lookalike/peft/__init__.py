"""The PEFT calls the trainer makes (LoraConfig, get_peft_model, set_peft_model_state_dict) and
PeftModel.disable_adapter, over nn.Linear layers named by target_modules (suffix match, as PEFT
matches a list of names). State dict names as PEFT's: `<module>.lora_A.weight`, `.lora_B.weight`."""

import contextlib
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class LoraConfig:
    r: int
    lora_alpha: int
    target_modules: list[str]
    lora_dropout: float = 0.0
    init_lora_weights: bool = True


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: int, dropout: float) -> None:
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.dropout = nn.Dropout(dropout)
        self.scaling = alpha / r
        self.disabled = False

    def forward(self, x):
        out = self.base_layer(x)
        if self.disabled:
            return out
        lora_in = self.dropout(x.to(self.lora_A.weight.dtype))
        return out + (self.lora_B(self.lora_A(lora_in)) * self.scaling).to(out.dtype)


class PeftModel(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.base_model = model

    def get_base_model(self) -> nn.Module:
        return self.base_model

    def forward(self, *args, **kwargs):
        return self.base_model(*args, **kwargs)

    @contextlib.contextmanager
    def disable_adapter(self):
        layers = [m for m in self.modules() if isinstance(m, LoraLinear)]
        for layer in layers:
            layer.disabled = True
        try:
            yield
        finally:
            for layer in layers:
                layer.disabled = False


def get_peft_model(model: nn.Module, config: LoraConfig) -> PeftModel:
    targets = [
        (name, module)
        for name, module in model.named_modules()
        if isinstance(module, nn.Linear) and any(name.split(".")[-1] == t for t in config.target_modules)
    ]
    for name, module in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        lora = LoraLinear(module, config.r, config.lora_alpha, config.lora_dropout)
        setattr(parent, child, lora.to(torch.float32))  # PEFT keeps LoRA weights in fp32
    return PeftModel(model)


def set_peft_model_state_dict(model: nn.Module, state: dict[str, torch.Tensor]) -> None:
    for key, value in state.items():
        name, _, param = key.rpartition(".")  # x.lora_A.weight
        layer = model.get_submodule(name)
        with torch.no_grad():
            getattr(layer, param).copy_(value)
