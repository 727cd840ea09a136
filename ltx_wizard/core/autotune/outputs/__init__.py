"""What autotune shows and writes for the user: autotune.log (results_log.py), the words of a
trial, a confirmation and the winner (presenter.py), the tuned config's text (tuned_config.py) and
the rows of the trials running now (live_rows.py)."""
