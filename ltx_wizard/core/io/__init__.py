"""Safe I/O: bounded reads, writes that stay inside the run folder, the byte-preserving YAML
patcher, the run folder itself (layout, lock, run.json) and the process table.
"""
