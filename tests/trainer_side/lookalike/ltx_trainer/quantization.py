def quantize_model(model, precision):
    raise NotImplementedError(f"the look-alike does not quantize ({precision})")
