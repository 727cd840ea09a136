"""The same plan on rented GPUs (issue 46): a SkyPilot task for a planned run folder.

sky_layout.py   where everything lies on the rented node, the accelerator's name, the models
git_head.py     the checkout's commit, read from its .git files (no child process)
sky_request.py  what the task is built from: plan.json, config.yaml, the commit; the checks
                made before anything is rented (refusals and warnings)
sky_scripts.py  setup.sh and run.sh, which every node runs (uv, checkout, models; the launch)
sky_task.py     task.yaml and smoke.yaml, and the trainer configs they read on the node
sky_readme.py   sky/README.md: the three commands, what costs money after the end, results
sky_python.py   a Python that has SkyPilot, and the task files checked by SkyPilot's own parser
                in it (a child of core/proc: SkyPilot lives in its own environment)
"""
