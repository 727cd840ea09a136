"""The memory levers and their rules, without running anything: a config's memory settings,
the VRAM model, the relaxation schedule, the batch rule, what a run found (results.py), and the
words that describe them. Planning and autotune both read these.
"""
