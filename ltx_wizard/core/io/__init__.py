"""Safe I/O: bounded reads, writes that stay inside the run folder, the byte-preserving YAML
patcher, the run folder itself (layout, lock, run.json), the table of its files (run_folder.py)
and the one codec every JSON file of it is read and written through (run_codec.py), the process
table, and a child of core/proc streamed into a log of the run folder (child_log.py).
"""
