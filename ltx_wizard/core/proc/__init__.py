"""The one child-process service under every phase: nothing outside core/proc starts a child in a
session of its own, signals a process group, or installs a signal handler.

    table.py     the /proc table: pid_alive, group_alive (one zombie rule), start times, environments
    tags.py      the tags every child carries (its session, its owner wizard, owned or detached)
    tree.py      a child's processes, ranks that left its group included
    stop.py      the one stop rule: SIGINT, SIGTERM, SIGKILL, each after a grace (Graces)
    registry.py  the one registry of live children; exit SIGKILLs what is left
    spawn.py     start a child (Popen or asyncio) in its own session, tagged and registered
    lines.py     line streaming: output cut into capped lines, to a log writer and a callback
    child.py     a child whose lines are streamed to a callback (trials, and what reads lines)
    signals.py   the one handler for SIGINT, SIGTERM and SIGHUP, for the commands and the TUI
    reaper.py    a session's watchdog process, for a wizard killed by SIGKILL
    orphans.py   at start-up: an earlier wizard's orphans found by tag, stopped, said in one line
"""
