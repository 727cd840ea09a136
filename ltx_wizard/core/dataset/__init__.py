"""The training data: the preprocessed data root, the dataset file (CSV/JSON/JSONL), its media,
and which folders a training strategy reads.
"""
