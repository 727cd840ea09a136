"""Phase 5, autotune: short trainer trials measured on the user's GPU, the sweep that follows
tuning/'s schedule over them, and what it leaves (autotune.log, the winner in config.yaml, plan.md
rendered again). Three wings, each a folder (the `autotune-wings` contract keeps trials and
outputs apart, both below the sweep), over the live events all three share:

    sweep/    the search: the engine, each trial step, the winner's confirmation, a setup stop,
              the finish (the tuned config written, or the best so far on a cancel)
    trials/   the trainer run as a trial (a child of core/proc): its session's guards, VRAM sampling,
              its log file, one runner per GPU slot, trials side by side, what a trial leaves
    outputs/  what the user reads: autotune.log, the words of a result, the tuned config's text,
              the rows of the trials running now
    events.py the live event union the trials emit, the sweep forwards and the outputs read
              (what a run found, TrialResult, Confirmation and the summary, is tuning/results.py's)

The trainer's output itself is read by core/trainer_output, shared with the monitor.
"""
