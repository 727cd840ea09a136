"""What the trainer prints, read one way for every reader: its log grammar (grammar.py, stages.py),
the line parser that turns live output into typed events (line_parser.py, line_events.py), the history
scan that skims a long train.log with the same patterns (history_scan.py), and the causes of a
failed run in one line (failure_cause.py, oom_message.py). Autotune reads its trials through it,
the monitor a launched run."""
