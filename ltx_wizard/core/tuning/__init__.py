"""The memory levers and their rules, without running anything: a config's memory settings,
the VRAM model, the relaxation schedule, the batch rule, the typed trial events, and the
words that describe them. Planning and autotune both read these.
"""
